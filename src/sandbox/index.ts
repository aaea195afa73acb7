import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { DEFAULT_DATA_DIR } from './data-files.js';
import type { ArtifactFile } from './data-model.js';
import { loadSandboxData } from './data-loader.js';
import { SandboxDataError } from './data-reader.js';
import { DEFAULT_SANDBOX_PORT } from './notice.js';
import { SandboxApp, type RequestLogEntry } from './server.js';
import { FIXTURE_EPOCH } from './timestamps.js';

export { DEFAULT_DATA_DIR, SandboxDataError };
export type { RequestLogEntry };

export { DEFAULT_SANDBOX_PORT, SANDBOX_NOTICE } from './notice.js';

export interface StartSandboxOptions {
  /** 0 picks a free port. Default 4010. The sandbox listens on 127.0.0.1 only. */
  port?: number;
  /** A directory laid out like fixtures/ (api/, sandbox/, artifacts/). Default: the repository's fixtures. */
  dataDir?: string;
  /** The sandbox clock (token expiry, rate-limit windows, URL expiry, timestamps); tests pass a fake one. */
  now?: () => Date;
  onRequest?: (entry: RequestLogEntry) => void;
  /** Move the fixtures' timestamps so that FIXTURE_EPOCH falls on the sandbox's start: data reads as recent. */
  recentTimestamps?: boolean;
  /** A sandbox bug (e.g. a body that would fail the client's schema), answered to the client as a 500. */
  onInternalError?: (message: string) => void;
  /** Serve HTTPS with this PEM certificate chain and key (for trying private CAs and NODE_EXTRA_CA_CERTS). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * The origin presigned artifact URLs name, asked at each createRestore: something in front of the
   * sandbox (the bench's long-link proxy). Undefined: the sandbox's own.
   */
  artifactOrigin?: () => string | undefined;
}

export interface SandboxTokenInfo {
  name: string;
  token: string;
  purpose: string;
  organizationId: string;
  organizationSlug: string;
  scopes: string[];
  expiresAt: string | null;
  revoked: boolean;
  rateLimit: { limit: number; windowSeconds: number };
}

/** An archive the sandbox serves, checked against its metadata at load. */
export type SandboxArtifactInfo = ArtifactFile;

export interface RunningSandbox {
  baseUrl: string;
  port: number;
  dataDir: string;
  tokens: SandboxTokenInfo[];
  /** The default artifact: what every completed backup restores from unless the data set names another. */
  artifact: SandboxArtifactInfo;
  /** Every archive of the data set (the default among them), by name: fixtures/ has acme-orders and billing. */
  artifacts: Record<string, SandboxArtifactInfo>;
  /** The token of the given name (full, read-only, no-scope, expired, revoked, org-b, tiny-budget, drill). */
  token(name: string): string;
  stop(): Promise<void>;
}

/** Loads the data set, starts the HTTP server on 127.0.0.1 and resolves once it listens. */
export async function startSandbox(opts: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const now = opts.now ?? (() => new Date());
  // Whole seconds, like the times of jobs created here (isoSeconds): no fixture time reads later than a new one.
  const shiftMs = opts.recentTimestamps ? Math.floor((now().getTime() - FIXTURE_EPOCH.getTime()) / 1000) * 1000 : 0;
  const data = await loadSandboxData(opts.dataDir ?? DEFAULT_DATA_DIR, { shiftMs });
  let baseUrl = '';
  const app = new SandboxApp(data, {
    now,
    baseUrl: () => opts.artifactOrigin?.() ?? baseUrl,
    onRequest: opts.onRequest,
    onInternalError: opts.onInternalError,
  });
  const handler = (req: Parameters<typeof app.handle>[0], res: Parameters<typeof app.handle>[1]) => void app.handle(req, res);
  const server = opts.tls ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? DEFAULT_SANDBOX_PORT, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;

  const tokens: SandboxTokenInfo[] = app.tokens.map((t) => ({
    name: t.name,
    token: t.token,
    purpose: t.purpose,
    organizationId: t.profile.organizationId,
    organizationSlug: t.profile.organizationSlug,
    scopes: [...t.profile.scopes],
    expiresAt: t.expiresAt ?? null,
    revoked: t.revoked,
    rateLimit: t.rateLimit,
  }));
  let stopped: Promise<void> | undefined;
  return {
    baseUrl,
    port,
    dataDir: data.dir,
    tokens,
    artifact: { ...data.artifacts.files.get(data.artifacts.defaultName)! },
    artifacts: Object.fromEntries([...data.artifacts.files].map(([name, file]) => [name, { ...file }])),
    token(name) {
      const t = tokens.find((x) => x.name === name);
      if (!t) throw new Error(`The sandbox data set has no token named ${name}.`);
      return t.token;
    },
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets of finished clients would otherwise hold close() open for seconds.
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

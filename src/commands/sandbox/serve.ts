import { readFile } from 'node:fs/promises';
import * as z from '../../zod.js';
import { CliError, UsageError } from '../../errors.js';
import { commandsNote, fields, note, table } from '../../output/writer.js';
import { shellCommand, svcCommand } from '../../output/shell-quote.js';
import { DEFAULT_SANDBOX_PORT, SANDBOX_NOTICE, SandboxDataError, startSandbox, type RunningSandbox, type SandboxTokenInfo } from '../../sandbox/index.js';
import type { Session } from '../../session.js';

export interface SandboxFlags {
  port?: string;
  data?: string;
  tlsCert?: string;
  tlsKey?: string;
}

export interface SandboxOptions {
  port: number;
  dataDir?: string;
  /** PEM files for HTTPS; both or neither. */
  tls?: { certFile: string; keyFile: string };
}

const port = z.pipe(z.pipe(z.string().check(z.regex(/^\d{1,5}$/)), z.transform(Number)), z.int().check(z.minimum(0), z.maximum(65535)));

export function options(_args: string[], flags: SandboxFlags): SandboxOptions {
  const parsed = port.safeParse(flags.port ?? String(DEFAULT_SANDBOX_PORT));
  if (!parsed.success) throw new UsageError(`Invalid --port "${flags.port}": use 0 to 65535 (0 picks a free port).`);
  if (flags.data !== undefined && flags.data.trim() === '') throw new UsageError('Invalid --data: it must not be empty.');
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together: give both PEM files, or neither for plain http.');
  }
  const tls = flags.tlsCert !== undefined && flags.tlsKey !== undefined ? { certFile: flags.tlsCert, keyFile: flags.tlsKey } : undefined;
  return { port: parsed.data, dataDir: flags.data, ...(tls ? { tls } : {}) };
}

async function readPem(path: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new UsageError(`Cannot read ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? 'read failed'}.`);
  }
}

async function start(session: Session, opts: SandboxOptions): Promise<RunningSandbox> {
  try {
    const tls = opts.tls && { cert: await readPem(opts.tls.certFile, '--tls-cert'), key: await readPem(opts.tls.keyFile, '--tls-key') };
    return await startSandbox({
      port: opts.port,
      dataDir: opts.dataDir,
      tls,
      recentTimestamps: true,
      onRequest: (e) => session.ui.info(`${e.method} ${e.path} ${e.status} ${e.ms}ms ${e.token ?? '-'} ${e.requestId}`),
      onInternalError: (m) => session.ui.warn(`sandbox bug, answered as 500: ${m}`),
    });
  } catch (err) {
    if (err instanceof SandboxDataError) {
      throw new CliError('sandbox_data', `The sandbox data set cannot be served: ${err.message}`);
    }
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError('port_in_use', `Port ${opts.port} on 127.0.0.1 is already in use.`);
    }
    throw err;
  }
}

const tokenColumns = [
  { header: 'NAME', value: (t: SandboxTokenInfo) => t.name },
  { header: 'TOKEN', value: (t: SandboxTokenInfo) => t.token },
  { header: 'PURPOSE', value: (t: SandboxTokenInfo) => t.purpose, shrink: true, drop: 1 },
];

/**
 * `svc sandbox`: starts the sandbox, prints where it is and its demo tokens, and serves until a
 * signal (SIGINT, SIGTERM or SIGHUP, through ctx.signal) stops it: for a server that is the normal
 * end, so it exits 0.
 */
export async function run(opts: SandboxOptions, session: Session): Promise<void> {
  const stop = session.ctx.signal;
  const sandbox = await start(session, opts);
  try {
    const full = sandbox.tokens.find((t) => t.name === 'full') ?? sandbox.tokens[0];
    await session.out.render({ notice: SANDBOX_NOTICE, baseUrl: sandbox.baseUrl, dataDir: sandbox.dataDir, tokens: sandbox.tokens }, [
      note(`svc sandbox: ${SANDBOX_NOTICE}`, 'yellow'),
      fields([
        ['base url', sandbox.baseUrl],
        ['data', sandbox.dataDir],
      ]),
      // Fixed, documented demo tokens: printing them is the point (they open nothing but this process).
      table(sandbox.tokens, tokenColumns, 'The data set defines no tokens.'),
      note('Try it:', 'dim'),
      commandsNote(
        [
          shellCommand(['export', `SVC_BASE_URL=${sandbox.baseUrl}`]),
          ...(full ? [shellCommand(['export', `SVC_API_KEY=${full.token}`])] : []),
          // Not the flags of this command: the exports above choose the service and the token.
          svcCommand(['databases', 'list', '--all']),
        ].map((line) => `  ${line}`),
        'dim',
      ),
    ]);
    session.ui.info(`Sandbox listening on ${sandbox.baseUrl}; Ctrl-C stops it.`);
    if (!stop.aborted) await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await sandbox.stop();
  }
  session.ui.info('Sandbox stopped.');
}

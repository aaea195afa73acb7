/**
 * The built CLI against the hostile service (./hostile-server.ts), as every hostile suite runs it:
 * one server per test file, and runs that must end by themselves and leave no secret behind.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc } from './built-cli.js';
import { HostileServer } from './hostile-server.js';
import { measurePeakRss } from './peak-rss.js';
import { expectNoSecretsLeft, type Secrets } from './secret-scan.js';

/** A hostile server for this file (or describe block): started once, its routes reset after each case. */
export function hostileService(): HostileServer {
  const hostile = new HostileServer();
  beforeAll(async () => {
    await ensureBuilt();
    await hostile.start();
  }, 180_000);
  afterEach(() => hostile.reset());
  afterAll(async () => {
    await hostile.stop();
    cleanupBuiltCli();
  });
  return hostile;
}

export interface HostileRun {
  code: number | undefined;
  stdout: string;
  stderr: string;
  /** With `rss`: the child's peak RSS in MiB. */
  peakMiB?: number;
}

/**
 * `svc ...args` with `token` against `hostile`. The spawn timeout is a hang detector, not a speed
 * test. Its stdout (unless `onStdout` takes it), stderr, HOME and TMPDIR are searched for the token
 * and `secrets`. `inProcess`: run(argv, ctx) in this process (test/support/run-cli.ts, the real
 * clock, svc's waits recorded instead of waited out), where the output is what is tested and not
 * the process; a file keeps some runs as children for what only the process shows.
 */
export async function svcAgainst(
  hostile: HostileServer,
  token: string,
  args: string[],
  opts: { timeoutMs?: number; rss?: boolean; secrets?: Secrets; onStdout?: (chunk: Buffer) => void; inProcess?: boolean } = {},
): Promise<HostileRun> {
  const env = cleanEnv({ SVC_API_KEY: token, SVC_BASE_URL: hostile.baseUrl });
  const scan = (texts: string[]) =>
    expectNoSecretsLeft({ texts, paths: [env.HOME!, env.TMPDIR!] }, { ...opts.secrets, tokens: [token, ...(opts.secrets?.tokens ?? [])] });
  if (opts.inProcess) {
    // Imported here: src/ is evaluated only in the files that run svc in-process.
    const { runCli } = await import('./run-cli.js');
    const r = await runCli(args, { env, realTime: true, sleeps: [] });
    await scan([r.stdout, r.stderr]);
    return r;
  }
  const rss = opts.rss ? measurePeakRss(env) : undefined;
  const r = await spawnSvc(args, { env: rss?.env ?? env, timeoutMs: opts.timeoutMs ?? 60_000, onStdout: opts.onStdout });
  expect(r.timedOut, `svc ${args.join(' ')} did not end`).toBe(false);
  // With onStdout, the caller saw stdout; what is left to search here is stderr and the files.
  const [stdout, stderr] = [opts.onStdout ? '' : String(r.stdout), String(r.stderr)];
  await scan([stdout, stderr]);
  return { code: r.exitCode, stdout, stderr, peakMiB: rss?.mib() };
}

import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { InterruptedError, LocalToolError } from '../../errors.js';
import type { SecretScrubber } from '../../secrets.js';
import { quoteConninfo } from '../../pg/quote.js';
import type { RestorePlan } from '../plan.js';
import type { EntryErrors } from './refusals.js';
import { RestoreProgress } from './restore-progress.js';

/**
 * pg_restore's flags (cli-contract 7.6): every restore, in place too, goes into a database of its own
 * (7.17), so there is no --clean and no single transaction. The connection comes from the environment.
 * `list` is a `-L` file (restore-list.ts): only its entries, in its order.
 */
export function pgRestoreArgs(plan: Pick<RestorePlan, 'jobs'> & { refusals?: boolean }, database: string, archivePath: string, list?: string): string[] {
  // --verbose: one line per object restored, read for progress (restore-progress.ts), and the entry of each error.
  const args = ['--verbose', '--no-owner', '--no-privileges'];
  // A least-privilege restore goes on after an error, to learn every entry the server refuses (refusals.ts).
  if (!plan.refusals) args.push('--exit-on-error');
  if (plan.jobs > 1) args.push(`--jobs=${plan.jobs}`);
  if (list) args.push(`--use-list=${list}`);
  args.push(`--dbname=dbname=${quoteConninfo(database)}`, archivePath);
  return args;
}

export interface PgRestoreRun {
  exitCode: number;
  durationMs: number;
}

export interface RunOptions {
  counter: RestoreProgress;
  onObject: (done: number, total: number) => void;
  /** Without --exit-on-error: each error with its entry, for refusals.ts to judge; pg_restore's exit 1 for them is no failure here. */
  errors?: EntryErrors;
}

const IGNORED_ERRORS = /errors ignored on restore: (\d+)/i;
/** What of pg_restore's stderr a failure shows: its last lines that are not --verbose progress. */
const TAIL_LINES = 20;

/**
 * Runs pg_restore from the verified file, with --verbose read line by line as it comes: each
 * finished object moves `progress` on, and only the last lines that are not progress are kept for a
 * failure's message (memory stays flat whatever the archive holds). Exit 1 and the "errors ignored
 * on restore: N" line are both failures. execa's error messages hold the full command line, so they
 * are never passed through: only pg_restore's own stderr, with known secrets scrubbed.
 */
export async function runPgRestore(
  pgRestore: string,
  args: string[],
  env: Record<string, string | undefined>,
  scrubber: SecretScrubber,
  signal: AbortSignal,
  progress?: RunOptions,
): Promise<PgRestoreRun> {
  const started = performance.now();
  const errorsBefore = progress?.errors?.errors.length ?? 0;
  const child = execa(pgRestore, args, {
    // Its errors are judged by their words ("from TOC entry"): pg_restore's own in English, whatever the user's locale.
    env: progress?.errors ? { ...env, LC_ALL: 'C' } : env,
    extendEnv: false,
    reject: false,
    // Ctrl-C is forwarded as SIGINT and pg_restore is waited for, so it can roll back cleanly.
    cancelSignal: signal,
    killSignal: 'SIGINT',
    forceKillAfterDelay: 30_000,
    stdin: 'ignore',
    stdout: 'ignore',
    buffer: false,
  });
  const tail: string[] = [];
  let ignored: string | undefined;
  if (child.stderr) {
    const lines = createInterface({ input: child.stderr, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (progress?.counter.line(line)) progress.onObject(progress.counter.done, progress.counter.total);
      ignored ??= IGNORED_ERRORS.exec(line)?.[1];
      progress?.errors?.line(line);
      if (RestoreProgress.isVerbose(line)) return;
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    });
  }
  const result = await child;
  const durationMs = Math.round(performance.now() - started);
  const stderr = scrubber.scrub(tail.join('\n'));

  if ((result as { code?: string }).code === 'ENOENT' || /ENOENT/.test(String(result.failed && result.originalMessage))) {
    throw new LocalToolError(`pg_restore was not found at ${pgRestore}.`, 'Install the PostgreSQL client tools, or put pg_restore on PATH.');
  }
  if (result.isCanceled || signal.aborted) throw new InterruptedError('Interrupted while pg_restore was running.');
  const exitCode = result.exitCode ?? 1;
  const errors = (progress?.errors?.errors.length ?? 0) - errorsBefore;
  // Errors it went on after, each read with its entry: the caller judges them (refusals.ts). Not their
  // count: a parallel pg_restore counts a worker's error twice in "errors ignored on restore: N".
  if (progress?.errors && exitCode === 1 && !result.signal && ignored !== undefined && errors > 0) return { exitCode, durationMs };
  if (exitCode !== 0 || ignored) {
    const why = ignored ? `reported ${ignored} ignored error(s)` : `exited with code ${exitCode}${result.signal ? ` (${result.signal})` : ''}`;
    throw new LocalToolError(`pg_restore ${why}.\n${stderr.trim() || '(no output)'}`, 'Fix the cause shown by pg_restore above, then run the restore again.');
  }
  return { exitCode, durationMs };
}

import { CliError, InterruptedError, JobFailedError } from '../../errors.js';
import type { Session } from '../../session.js';

export const POLL_INTERVAL_MS = 2_000;

export interface PollSpec<T> {
  what: string;
  fetch: () => Promise<T>;
  state: (value: T) => string;
  /** States after which nothing more will happen. */
  terminal: ReadonlySet<string>;
  /** Terminal states that count as failure (exit 12). */
  failed: ReadonlySet<string>;
  intervalMs: number;
  timeoutMs: number;
  /** The command that looks at the job again, for a wait that gives up: `svc backups get bj_1`. */
  checkAgain: string;
  describeFailure?: (value: T) => string;
}

/**
 * Polls until a terminal state: an ora spinner on a TTY, otherwise one plain line per state change;
 * it ends with ✓ or ✗ and the time waited. Giving up at the wait timeout is exit 9;
 * assertSucceeded() turns a failed end state into exit 12.
 */
export async function pollUntilDone<T>(session: Session, spec: PollSpec<T>): Promise<T> {
  const { ctx } = session;
  const started = performance.now();
  // Time slept counts too, so an injected clock in tests reaches the deadline deterministically.
  let slept = 0;
  let value = await spec.fetch();
  const spinner = await session.ui.spinner(`${spec.what}: ${spec.state(value)}`);
  let done = false;
  try {
    while (!spec.terminal.has(spec.state(value))) {
      if (Math.max(performance.now() - started, slept) >= spec.timeoutMs) {
        throw new CliError('wait_timeout', `Gave up waiting after ${Math.round(spec.timeoutMs / 1000)}s: ${spec.what} is still ${spec.state(value)}.`, {
          hint: `The job goes on at the service. Check it again with: ${spec.checkAgain}`,
        });
      }
      await ctx.sleep(spec.intervalMs, ctx.signal);
      slept += spec.intervalMs;
      if (ctx.signal.aborted) throw new InterruptedError(`Stopped waiting; ${spec.what} goes on at the service. Check it again with: ${spec.checkAgain}`);
      value = await spec.fetch();
      spinner.update(`${spec.what}: ${spec.state(value)}`);
    }
    done = true;
  } finally {
    const line = `${spec.what}: ${spec.state(value)}`;
    if (done && !spec.failed.has(spec.state(value))) spinner.succeed(line);
    else spinner.fail(done ? line : `${line} (still waiting when svc stopped)`);
  }
  return value;
}

/** After the final state has been shown: exit 12 when it is a failure. */
export function assertSucceeded<T>(spec: PollSpec<T>, value: T): void {
  if (spec.failed.has(spec.state(value))) {
    throw new JobFailedError(`${spec.what} ended ${spec.state(value)}${spec.describeFailure ? `: ${spec.describeFailure(value)}` : '.'}`);
  }
}

import { closeSync } from 'node:fs';
import { isatty } from 'node:tty';

/**
 * A terminal that hangs up (its window closed, the SSH connection dropped) sends SIGHUP and fails
 * every later read, write and mode change on it with EIO. svc must still clean up, stop pg_restore
 * and exit 129 (cli-contract 7.9), with nowhere left to say so.
 */

/**
 * At exit, closes the standard descriptors whose terminal went away. Node 20 puts each terminal
 * back in the mode it found it in as the process ends and aborts when that fails
 * (nodejs/node#51519; Node 24 ignores the failure, nodejs/node#58200): exit 129 would become a
 * crash. Node skips a descriptor that is no longer open.
 */
export function closeHungUpStdioAtExit(): void {
  const wasTerminal = [0, 1, 2].map((fd) => isatty(fd));
  process.on('exit', () => {
    wasTerminal.forEach((was, fd) => {
      if (!was || isatty(fd)) return;
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
    });
  });
}

type TerminalInput = NodeJS.ReadStream & { fd: number };

const guarded = new WeakSet<TerminalInput>();

/**
 * Node's readline re-emits a failed setRawMode as an 'error' event of its own that nobody listens
 * to: on a hung-up terminal, clack's prompt closing would crash svc before it cleaned up. A terminal
 * that is gone has no mode left to set.
 */
function guardRawMode(input: TerminalInput): void {
  if (guarded.has(input) || typeof input.setRawMode !== 'function') return;
  guarded.add(input);
  const setRawMode = input.setRawMode.bind(input);
  input.setRawMode = (mode: boolean) => (isatty(input.fd) ? setRawMode(mode) : input);
}

/** How long a prompt whose terminal input ended waits for the SIGHUP that normally comes with it. */
const HANGUP_GRACE_MS = 2_000;

/**
 * The abort signal for a prompt on `input`: the run's own (SIGINT, SIGTERM, SIGHUP), or the
 * terminal's input ending. A hang-up ends the input and sends SIGHUP at once; the timer keeps node's
 * event loop alive until the SIGHUP handler has run (so the run ends as a hang-up, 129), where an
 * empty loop would let node leave first, with no clean-up report and exit 13. Input that ends with
 * no signal at all ends the prompt after the grace, like Ctrl-C: a prompt never waits for ever.
 */
export function promptSignal(input: TerminalInput, signal: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  guardRawMode(input);
  const ended = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const onEnd = () => {
    grace ??= setTimeout(() => ended.abort('terminal input ended'), HANGUP_GRACE_MS);
  };
  input.once('end', onEnd);
  return {
    signal: signal ? AbortSignal.any([signal, ended.signal]) : ended.signal,
    dispose() {
      clearTimeout(grace);
      input.off('end', onEnd);
    },
  };
}

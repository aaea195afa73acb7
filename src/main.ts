import { run } from './cli.js';
import type { Context } from './context.js';
import { exitCodeForSignal } from './exit-codes.js';
import { runExitNet } from './exit-net.js';
import { exitNote } from './exit-note.js';
import { closeHungUpStdioAtExit } from './ui/hangup.js';
import { eraseEchoAtLineStarts } from './ui/interrupt-echo.js';
import { clackPrompter } from './ui/prompter.js';
import { sleep } from './ui/sleep.js';
import { reportUsableColumns, terminalColumns } from './ui/terminal.js';

/**
 * Closing the terminal or an SSH drop (HUP), Ctrl-C (INT) and a CI runner cancelling a job (TERM)
 * all get the same clean-up: the PGPASSFILE and partial files above all (cli-contract 7.9).
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The process entry: real streams and signals around run(). */
export async function main(): Promise<void> {
  const interrupt = new AbortController();
  // A terminal that hung up fails every write with EIO; stderr is where svc would report that, so
  // it goes unsaid rather than crash the run before it cleaned up (the first access builds the stream).
  let stderrGuarded = false;
  const stderr = () => {
    if (!stderrGuarded) {
      stderrGuarded = true;
      process.stderr.on('error', () => {});
      eraseEchoAtLineStarts(process.stderr);
      reportUsableColumns(process.stderr);
    }
    return process.stderr;
  };
  closeHungUpStdioAtExit();
  reportUsableColumns(process.stdout);
  const onSignal = (signal: NodeJS.Signals) => {
    // First signal: let the running step clean up (partial files, child processes). Second: leave
    // now, but only once the exit net has removed the password files and temp dirs, so what is
    // said next is what happened.
    if (interrupt.signal.aborted) {
      const left = runExitNet();
      const note = exitNote();
      const said = left.length
        ? `; these could not be removed, remove them yourself: ${left.join(', ')}.${note ? ` ${note}` : ''}`
        : note
          ? `; the password file and temporary files were removed. ${note}`
          : '.';
      stderr().write(`Stopped at once on a second ${signal}${said}\n`);
      process.exit(exitCodeForSignal(signal));
    }
    interrupt.abort(signal);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  // `svc ... | head` closes stdout early; that is not an error worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });

  const ctx: Context = {
    stdout: process.stdout,
    // Getters: node builds process.stdin and process.stderr on first access, which most runs never need.
    get stderr() {
      return stderr();
    },
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY: process.stdout.isTTY === true,
    stdoutColumns: terminalColumns(process.stdout),
    get stderrColumns() {
      return terminalColumns(process.stderr);
    },
    get stderrIsTTY() {
      return process.stderr.isTTY === true;
    },
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    env: process.env,
    signal: interrupt.signal,
    sleep,
    random: Math.random,
    now: () => new Date(),
    prompter: clackPrompter,
  };
  const code = await run(process.argv.slice(2), ctx);
  process.exitCode = code;
  // Pending keep-alive sockets or a hung keychain call must not hold the process open.
  process.stdout.write('', () => process.exit(code));
}

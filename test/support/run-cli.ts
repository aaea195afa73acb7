import { PassThrough, Readable } from 'node:stream';
import { run } from '../../src/cli.js';
import type { Context, KeytarLike, Prompter } from '../../src/context.js';
import { FIXTURE_EPOCH } from '../../src/sandbox/timestamps.js';
import { sleep as realSleep } from '../../src/ui/sleep.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  tty?: boolean;
  /** With tty: the terminal's width in columns (stdout and stderr). */
  columns?: number;
  prompter?: Partial<Prompter>;
  keytar?: KeytarLike | null;
  signal?: AbortSignal;
  /** Records every sleep the client asks for instead of waiting. */
  sleeps?: number[];
  now?: Date;
  /**
   * The real clock, sleep and randomness, as bin/svc has them (an end-to-end run against a live
   * server), instead of the fakes; with `sleeps` too, the sleeps are still only recorded.
   */
  realTime?: boolean;
  /** Sees stderr as it comes (it is still collected): a test that waits for a line before it acts. */
  onStderr?: (chunk: Buffer) => void;
}

/** The fake clock stands at the fixtures' epoch, so their relative ages read as written. */
export const TEST_NOW = FIXTURE_EPOCH;

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
}

/** Runs the CLI in-process with buffers for stdout/stderr and a fake clock, prompter and keychain. */
export async function runCli(argv: string[], opts: RunOptions = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  if (opts.onStderr) stderr.on('data', opts.onStderr);
  const ctx: Context = {
    stdout,
    stderr,
    stdin: Readable.from(opts.stdin !== undefined ? [opts.stdin] : []),
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: opts.tty ?? false,
    stdinIsTTY: opts.tty ?? false,
    stdoutColumns: opts.tty ? opts.columns : undefined,
    stderrColumns: opts.tty ? opts.columns : undefined,
    env: { NO_COLOR: '1', ...opts.env },
    signal: opts.signal ?? new AbortController().signal,
    sleep:
      opts.realTime && !opts.sleeps
        ? realSleep
        : async (ms) => {
            opts.sleeps?.push(ms);
          },
    random: opts.realTime ? Math.random : () => 0.5,
    now: opts.realTime ? () => new Date() : () => opts.now ?? TEST_NOW,
    prompter: {
      secret: async () => {
        throw new Error('unexpected secret prompt');
      },
      text: async () => {
        throw new Error('unexpected text prompt');
      },
      ...opts.prompter,
    },
    keytar: opts.keytar === undefined ? null : opts.keytar,
  };
  const code = await run(argv, ctx);
  stdout.end();
  stderr.end();
  return { code, stdout: out(), stderr: err() };
}

import type { Readable, Writable } from 'node:stream';

/** Interactive questions; the real one uses @clack/prompts, tests hand in a fake. */
export interface Prompter {
  /** Hidden input; undefined when the user cancels (Ctrl-C) or `signal` aborts. */
  secret(message: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Free text with validation; undefined when the user cancels (Ctrl-C) or `signal` aborts. */
  text(message: string, validate?: (value: string) => string | undefined, signal?: AbortSignal): Promise<string | undefined>;
}

/** Everything with a side effect reaches commands through here, so tests can hand in buffers and fakes. */
export interface Context {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Columns of the terminal stdout is on; undefined when stdout is not a terminal (then nothing is truncated or wrapped). */
  stdoutColumns?: number;
  /** Columns of the terminal stderr is on, for progress lines and hints. */
  stderrColumns?: number;
  env: Record<string, string | undefined>;
  /** Aborted on SIGINT, SIGTERM or SIGHUP; the reason is the signal's name. */
  signal: AbortSignal;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
  now(): Date;
  prompter: Prompter;
  /** For tests only: replaces the lazily loaded keytar module; null means "no keychain". */
  keytar?: KeytarLike | null;
}

export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

import { CliError, UsageError } from '../errors.js';
import { JQ_LIMITS, JqThread, jqOutOfMemory, type JqLimits, type JqReply } from './jq-thread.js';
import type { JqFilter } from './writer.js';

/** jq's exit status for a program that does not compile (jq 1.7 manual, "Invoking jq"). */
const COMPILE_ERROR = 3;

const MANUAL = 'The expression is jq 1.7: https://jqlang.org/manual/v1.7/';

/**
 * `-c`: one result per line as compact JSON, which keeps results apart even when a string holds a
 * newline; `--`: an expression that starts with "-" (`-.count`) is the program, not a jq option.
 */
const FLAGS = ['-c', '--'];

/** A compiled --jq expression with the thread it runs in, which its owner closes. */
export interface JqProgram extends JqFilter {
  close(): Promise<void>;
}

/** jq's stderr as svc's message: without the "jq: error: " prefixes, the error count or padding. */
function describe(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.replace(/^jq: error(?: \([^)]*\))*: ?/, '').trimEnd())
    .filter((l) => l !== '' && !/^jq: \d+ compile errors?$/.test(l));
  return lines.length === 0 ? 'jq gave no reason' : lines.join('\n  ');
}

/** The document's top-level keys, which an expression starts from (`.databases[]`), for the failure's message. */
function topLevel(document: unknown): string {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return '';
  const keys = Object.keys(document);
  if (keys.length === 0) return '. The document is an empty object.';
  return `. The document's top-level ${keys.length === 1 ? 'key is' : 'keys are'} ${keys.map((k) => `.${k}`).join(', ')}.`;
}

/** jq -r's lines: strings raw, every other value as compact JSON, one result per line. */
function rawLines(stdout: string | undefined): string[] {
  if (stdout === undefined) return [];
  return stdout.split('\n').map((line) => (line.startsWith('"') ? (JSON.parse(line) as string) : line));
}

/** jq's stdout, or the error for what stopped it (a non-zero exit is `failed`'s to word). */
function output(reply: JqReply, limits: JqLimits, failed: (exitCode: number, stderr: string) => CliError): string | undefined {
  switch (reply.kind) {
    case 'done':
      return reply.stdout;
    case 'unavailable':
      throw new CliError('unexpected', `--jq needs the jq-web package, installed with svc, and it could not be loaded: ${reply.message}`, {
        hint: 'Reinstall svc (npm install -g svc), or leave out --jq and pipe --json into jq.',
      });
    case 'failed':
      if (reply.exitCode !== undefined) throw failed(reply.exitCode, reply.stderr);
      // jq 1.7 says this, then aborts, when malloc fails (jv_alloc.c): here, at the thread's memory limit.
      if (reply.stderr.includes('cannot allocate memory')) throw jqOutOfMemory(limits, 'values');
      throw new CliError('unexpected', `jq stopped: ${reply.reason}`);
  }
}

/**
 * Compiles a --jq expression (cli-contract 1): a UsageError (exit 2) naming jq's complaint when it
 * does not compile, before any request is sent. The program runs jq on a document and returns the
 * lines `jq -r` would print; `signal` stops it, and jq runs within `limits`.
 */
export async function compileJq(expression: string, signal: AbortSignal, limits: JqLimits = JQ_LIMITS): Promise<JqProgram> {
  const thread = new JqThread(signal, limits);
  try {
    // jq compiles its program before it reads any input: on an empty input, a program that compiles
    // runs zero times, so checking it never evaluates it (nor loops, for `repeat(.)`).
    output(await thread.run({ input: '', expression, flags: FLAGS }), limits, (exitCode, stderr) =>
      exitCode === COMPILE_ERROR
        ? new UsageError(`The --jq expression does not compile: ${describe(stderr)}`, MANUAL)
        : new CliError('unexpected', `jq failed to start (exit ${exitCode}): ${describe(stderr)}`),
    );
  } catch (err) {
    await thread.close();
    throw err;
  }
  return {
    async lines(document) {
      const reply = await thread.run({ input: JSON.stringify(document) ?? 'null', expression, flags: FLAGS });
      return rawLines(
        output(reply, limits, (_, stderr) => new CliError('jq_failed', `The --jq expression failed on the result: ${describe(stderr)}${topLevel(document)}`)),
      );
    },
    close: () => thread.close(),
  };
}

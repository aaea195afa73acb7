import { createRequire } from 'node:module';
import { CliError, UsageError } from '../errors.js';
import type { JqFilter } from './writer.js';

/** The part of jq-web (jq 1.7 built for WebAssembly) svc calls: jq's command line, run on one input text. */
interface JqWeb {
  /** stdout without its final newline (undefined when empty); throws on a non-zero exit, with `exitCode` and `stderr`. */
  raw(input: string, filter: string, flags: string[]): string | undefined;
}

interface JqExit {
  exitCode?: number;
  stderr?: string;
}

/** jq's exit status for a program that does not compile (jq 1.7 manual, "Invoking jq"). */
const COMPILE_ERROR = 3;

const MANUAL = 'The expression is jq 1.7: https://jqlang.org/manual/v1.7/';

/**
 * `-c`: one result per line as compact JSON, which keeps results apart even when a string holds a
 * newline; `--`: an expression that starts with "-" (`-.count`) is the program, not a jq option.
 */
const FLAGS = ['-c', '--'];

/**
 * jq-web is external to the bundle (tools/bundle.mjs) and resolved from node_modules: its Emscripten
 * loader reads jq.wasm from beside its own jq.js. It is CommonJS whose exports are a promise of the
 * instance, so it is required (and cached by require) rather than imported: a namespace whose
 * module is a promise is thenable under some loaders. It is loaded only for --jq.
 */
function load(): Promise<JqWeb> {
  try {
    return createRequire(import.meta.url)('jq-web') as Promise<JqWeb>;
  } catch (err) {
    throw new CliError('unexpected', `--jq needs the jq-web package, installed with svc, and it could not be loaded: ${(err as Error).message}`, {
      hint: 'Reinstall svc (npm install -g svc), or leave out --jq and pipe --json into jq.',
    });
  }
}

type Outcome = { ok: true; stdout: string | undefined } | { ok: false; exitCode: number | undefined; stderr: string };

/** One run of jq's main(), with the process-wide state jq-web touches put back afterwards. */
function runJq(jq: JqWeb, input: string, expression: string): Outcome {
  // Emscripten sets process.exitCode to jq's status (jq-web restores it only when it was set), and
  // jq-web passes what jq's `debug` and `stderr` write to console.warn. Neither is svc's to have
  // changed: the run's exit code is cli.ts's, and only stdout results are the filter's output.
  const exitCode = process.exitCode;
  const warn = console.warn;
  console.warn = () => {};
  try {
    return { ok: true, stdout: jq.raw(input, expression, FLAGS) };
  } catch (err) {
    const failed = err as JqExit;
    if (typeof failed?.exitCode !== 'number') throw err;
    return { ok: false, exitCode: failed.exitCode, stderr: failed.stderr ?? '' };
  } finally {
    console.warn = warn;
    process.exitCode = exitCode;
  }
}

/** jq's stderr as svc's message: without the "jq: error: " prefixes, the error count or padding. */
function describe(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.replace(/^jq: error(?: \([^)]*\))*: ?/, '').trimEnd())
    .filter((l) => l !== '' && !/^jq: \d+ compile errors?$/.test(l));
  return lines.length === 0 ? 'jq gave no reason' : lines.join('\n  ');
}

/** jq -r's lines: strings raw, every other value as compact JSON, one result per line. */
function rawLines(stdout: string | undefined): string[] {
  if (stdout === undefined) return [];
  return stdout.split('\n').map((line) => (line.startsWith('"') ? (JSON.parse(line) as string) : line));
}

/**
 * Compiles a --jq expression (cli-contract 1): a UsageError (exit 2) naming jq's complaint when it
 * does not compile, before any request is sent. The filter runs jq on a document and returns the
 * lines `jq -r` would print.
 */
export async function compileJq(expression: string): Promise<JqFilter> {
  const jq = await load();
  // jq compiles its program before it reads any input: on an empty input, a program that compiles
  // runs zero times, so checking it never evaluates it (nor loops, for `repeat(.)`).
  const probe = runJq(jq, '', expression);
  if (!probe.ok) {
    if (probe.exitCode === COMPILE_ERROR) throw new UsageError(`The --jq expression does not compile: ${describe(probe.stderr)}`, MANUAL);
    throw new CliError('unexpected', `jq failed to start (exit ${probe.exitCode}): ${describe(probe.stderr)}`);
  }
  return (document) => {
    const result = runJq(jq, JSON.stringify(document) ?? 'null', expression);
    if (!result.ok) throw new CliError('jq_failed', `The --jq expression failed on the result: ${describe(result.stderr)}`);
    return rawLines(result.stdout);
  };
}

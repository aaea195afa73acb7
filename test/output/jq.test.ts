import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, InterruptedError, UsageError } from '../../src/errors.js';
import { compileJq as compile, type JqProgram } from '../../src/output/jq.js';
import type { JqLimits } from '../../src/output/jq-thread.js';

const doc = {
  databases: [
    { id: 'db_orders', name: 'orders-prod', retentionPolicyDays: 30, lastSuccessfulBackupAt: null, tags: ['prod', 'eu'] },
    { id: 'db_billing', name: 'line one\nline two', retentionPolicyDays: 90, lastSuccessfulBackupAt: '2026-11-19T01:30:40Z', tags: [] },
  ],
};

const opened: JqProgram[] = [];

/** compileJq with a signal nobody aborts; the program's thread is closed after the test. */
async function compileJq(expression: string, signal = new AbortController().signal, limits?: JqLimits): Promise<JqProgram> {
  const program = await compile(expression, signal, limits);
  opened.push(program);
  return program;
}

async function filter(expression: string, document: unknown = doc): Promise<string[]> {
  return (await compileJq(expression)).lines(document);
}

/** What a promise rejected with (undefined when it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

const refusal = (expression: string): Promise<unknown> => rejection(compileJq(expression));

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(opened.splice(0).map((p) => p.close()));
});

describe('compileJq: results as jq -r prints them', () => {
  it.each([
    ['strings raw, without quotes', '.databases[].id', ['db_orders', 'db_billing']],
    [
      'numbers, null and booleans as JSON',
      '.databases[] | .retentionPolicyDays, .lastSuccessfulBackupAt, (.tags | length > 0)',
      ['30', 'null', 'true', '90', '2026-11-19T01:30:40Z', 'false'],
    ],
    [
      'objects and arrays as compact JSON, one per line',
      '.databases[] | {id, tags}',
      ['{"id":"db_orders","tags":["prod","eu"]}', '{"id":"db_billing","tags":[]}'],
    ],
    ['a string with a newline stays one result, printed raw', '.databases[1].name', ['line one\nline two']],
    ['the identity: the whole document, compact', '.', [JSON.stringify(doc)]],
    ['no result: nothing', '.databases[] | select(.id == "db_none")', []],
    ['an expression that starts with "-" is the program, not a jq option', '-.databases[0].retentionPolicyDays', ['-30']],
    ['definitions and pipes over several lines', 'def ids: .databases[].id;\n[ids] | join(",")', ['db_orders,db_billing']],
    ['unicode passes through', '"é☃ 😀"', ['é☃ 😀']],
  ])('%s', async (_name, expression, lines) => {
    expect(await filter(expression)).toEqual(lines);
  });

  it('one compiled filter runs on many documents', async () => {
    const ids = await compileJq('.databases | map(.id) | join(" ")');
    expect(await ids.lines(doc)).toEqual(['db_orders db_billing']);
    expect(await ids.lines({ databases: [{ id: 'db_x' }] })).toEqual(['db_x']);
  });
});

describe('compileJq: an expression that does not compile is a usage error (exit 2)', () => {
  it.each([
    ['a syntax error', '.databases[', /^The --jq expression does not compile: syntax error, unexpected end of file/],
    ['an unknown function', '.databases | nosuchfunction', /^The --jq expression does not compile: nosuchfunction\/0 is not defined/],
    ['an undefined variable', '$nope', /^The --jq expression does not compile: \$nope is not defined/],
    ['an empty expression', '', /^The --jq expression does not compile: Top-level program not given/],
    ['something that looks like a jq option', '--arg', /^The --jq expression does not compile: arg\/0 is not defined/],
  ])('%s', async (_name, expression, message) => {
    const err = await refusal(expression);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toMatch(message);
    expect((err as UsageError).message).not.toMatch(/jq: error|compile error$/m);
    expect((err as UsageError).details.hint).toContain('jqlang.org/manual/v1.7');
  });

  it('compiling never runs the expression: one that would loop forever compiles at once', async () => {
    // Were it run, it would never return: the test's timeout, not a stopwatch, would catch it.
    await compileJq('repeat(.)');
  });
});

describe('compileJq: what jq does to the process', () => {
  it("a failure on the document is jq_failed (exit 2), naming jq's reason", async () => {
    const f = await compileJq('.databases | .id');
    const caught = await rejection(f.lines(doc));
    expect(caught).toBeInstanceOf(CliError);
    expect((caught as CliError).details.code).toBe('jq_failed');
    expect((caught as CliError).exitCode).toBe(2);
    // The document's top-level keys, which the expression starts from (issue 34).
    expect((caught as CliError).message).toBe(
      'The --jq expression failed on the result: Cannot index array with string "id". The document\'s top-level key is .databases.',
    );
  });

  it('halt_error names the value it was given', async () => {
    const f = await compileJq('"no database" | halt_error');
    await expect(f.lines(doc)).rejects.toThrow('The --jq expression failed on the result: no database');
  });

  it('leaves process.exitCode unset, though jq exits 3 and 5 (Emscripten would set it)', async () => {
    const saved = process.exitCode;
    process.exitCode = undefined;
    try {
      expect(await refusal('.[')).toBeInstanceOf(UsageError);
      await expect(filter('error("x")')).rejects.toThrow('failed on the result: x');
      expect(process.exitCode).toBeUndefined();
    } finally {
      process.exitCode = saved;
    }
  });

  it("jq's debug output does not reach the console (only results are output)", async () => {
    const warn = vi.spyOn(console, 'warn');
    expect(await filter('.databases[0].id | debug')).toEqual(['db_orders']);
    expect(warn).not.toHaveBeenCalled();
  });

  it("$ENV is jq-web's own, not the process environment: the token cannot be printed through it", async () => {
    process.env.SVC_JQ_TEST_SECRET = 'svc_secret_from_env_0123';
    try {
      const lines = await filter('$ENV | tostring');
      expect(lines.join('\n')).not.toContain('svc_secret_from_env_0123');
      expect(await filter('env | has("SVC_JQ_TEST_SECRET")')).toEqual(['false']);
    } finally {
      delete process.env.SVC_JQ_TEST_SECRET;
    }
  });
});

describe('compileJq: a run that does not end by itself', () => {
  it('stops when the signal aborts (SIGINT, SIGTERM, SIGHUP in main.ts), though jq never returns', async () => {
    const interrupt = new AbortController();
    const program = await compileJq('last(range(1e18))', interrupt.signal);
    const run = rejection(program.lines(doc));
    await new Promise((resolve) => setTimeout(resolve, 300));
    interrupt.abort('SIGTERM');
    // jq never returns: the run ends only through the abort (else the test's timeout catches it).
    expect(await run).toBeInstanceOf(InterruptedError);
    // The thread is gone: a later document fails at once instead of queueing behind it.
    expect(await rejection(program.lines(doc))).toBeInstanceOf(InterruptedError);
  });

  it('a signal that came before the run: nothing runs', async () => {
    const interrupt = new AbortController();
    interrupt.abort('SIGINT');
    expect(await rejection(compile('.', interrupt.signal))).toBeInstanceOf(InterruptedError);
  });

  it.each([
    // jq's values live in its WebAssembly memory: jq's own "cannot allocate memory", at the limit.
    ["values that outgrow jq's memory", '[range(1e8)] | length', { wasmMiB: 64, growthMiB: 1024 }, 'svc gives jq 64 MiB for its values.'],
    // Output gathers in JavaScript, outside that memory: the run's growth is watched.
    ['output without end', 'range(1e18)', { wasmMiB: 512, growthMiB: 96 }, 'svc gives jq 96 MiB for a run in all, its output included.'],
    ['debug output without end', 'repeat(debug)', { wasmMiB: 512, growthMiB: 96 }, 'svc gives jq 96 MiB for a run in all, its output included.'],
  ])('%s: jq_out_of_memory (exit 1), naming the limit', async (_name, expression, limits, limit) => {
    const program = await compileJq(expression, undefined, limits);
    const err = await rejection(program.lines(doc));
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).details.code).toBe('jq_out_of_memory');
    expect((err as CliError).exitCode).toBe(1);
    expect((err as CliError).message).toBe(`The --jq expression ran out of memory: ${limit}`);
    expect((err as CliError).details.hint).toMatch(/pipe it into jq/);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, UsageError } from '../../src/errors.js';
import { compileJq } from '../../src/output/jq.js';

const doc = {
  databases: [
    { id: 'db_orders', name: 'orders-prod', retentionPolicyDays: 30, lastSuccessfulBackupAt: null, tags: ['prod', 'eu'] },
    { id: 'db_billing', name: 'line one\nline two', retentionPolicyDays: 90, lastSuccessfulBackupAt: '2026-11-19T01:30:40Z', tags: [] },
  ],
};

async function filter(expression: string, document: unknown = doc): Promise<string[]> {
  return (await compileJq(expression))(document);
}

async function refusal(expression: string): Promise<unknown> {
  return compileJq(expression).then(
    () => undefined,
    (err: unknown) => err,
  );
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('compileJq: results as jq -r prints them', () => {
  it.each([
    ['strings raw, without quotes', '.databases[].id', ['db_orders', 'db_billing']],
    ['numbers, null and booleans as JSON', '.databases[] | .retentionPolicyDays, .lastSuccessfulBackupAt, (.tags | length > 0)', ['30', 'null', 'true', '90', '2026-11-19T01:30:40Z', 'false']],
    ['objects and arrays as compact JSON, one per line', '.databases[] | {id, tags}', ['{"id":"db_orders","tags":["prod","eu"]}', '{"id":"db_billing","tags":[]}']],
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
    expect(ids(doc)).toEqual(['db_orders db_billing']);
    expect(ids({ databases: [{ id: 'db_x' }] })).toEqual(['db_x']);
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
    const started = Date.now();
    await compileJq('repeat(.)');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('compileJq: what jq does to the process', () => {
  it('a failure on the document is jq_failed (exit 2), naming jq\'s reason', async () => {
    const f = await compileJq('.databases | .id');
    let caught: unknown;
    try {
      f(doc);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CliError);
    expect((caught as CliError).details.code).toBe('jq_failed');
    expect((caught as CliError).exitCode).toBe(2);
    expect((caught as CliError).message).toBe('The --jq expression failed on the result: Cannot index array with string "id"');
  });

  it('halt_error names the value it was given', async () => {
    const f = await compileJq('"no database" | halt_error');
    expect(() => f(doc)).toThrow('The --jq expression failed on the result: no database');
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

  it('$ENV is jq-web\'s own, not the process environment: the token cannot be printed through it', async () => {
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

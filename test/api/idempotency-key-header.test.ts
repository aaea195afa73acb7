import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { LoopbackServer } from '../support/loopback-server.js';
import { runCli } from '../support/run-cli.js';

/**
 * --idempotency-key goes into an HTTP header. A key undici cannot put there (non-ASCII, control
 * characters) used to be reported, after every retry, as "Could not reach the service ...
 * UND_ERR_INVALID_ARG" with exit 9; it is a local argument error: exit 2, nothing sent.
 */
const server = new LoopbackServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());

const cli = (...argv: string[]) => runCli([...argv, '--base-url', server.baseUrl], { env: { SVC_API_KEY: 'svc_test_review_0123456789abcdef' } });

it.each([['ключ-1'], ['a\nb'], ['tab\there'], [' padded ']])('backups trigger refuses the idempotency key %j: exit 2, nothing sent', async (key) => {
  const r = await cli('backups', 'trigger', 'db_orders', '--idempotency-key', key);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--idempotency-key');
  expect(r.stderr).not.toContain('Could not reach');
  expect(server.exchanges).toHaveLength(0);
});

it('restore create refuses a non-ASCII idempotency key before any preflight or request', async () => {
  const r = await cli('restore', 'create', '--backup', 'bj_0010', '--target', 'postgresql://app@127.0.0.1:1/restored', '--idempotency-key', 'schlüssel');
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--idempotency-key');
  expect(server.exchanges).toHaveLength(0);
});

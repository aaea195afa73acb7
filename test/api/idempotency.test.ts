import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, type ClientConfig } from '../../src/api/client.js';
import { triggerBackup } from '../../src/api/operations.js';
import { isCliError } from '../../src/errors.js';
import { fixture } from '../support/fixtures.js';
import { drop, hang, json, LoopbackServer } from '../support/loopback-server.js';

const TOKEN = 'svc_test_11223344556677889900aabbccddeeff';

let server: LoopbackServer;
let client: ApiClient | undefined;
let sleeps: number[];

beforeEach(async () => {
  server = await new LoopbackServer().start();
  sleeps = [];
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await server.stop();
});

function makeClient(overrides: Partial<ClientConfig> = {}): ApiClient {
  client = new ApiClient({
    baseUrl: server.baseUrl,
    token: TOKEN,
    // Long enough that a loaded machine answers every scripted response in time; only hang() runs into it.
    timeoutMs: 2_000,
    maxRetries: 4,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return client;
}

describe('mutations across retries', () => {
  it('triggerBackup sends the same Idempotency-Key and body on every attempt: 503, reset, timeout, 500, then 202', async () => {
    server.script(
      json(503, fixture('error-500'), { 'retry-after': '1' }),
      drop(),
      hang(),
      json(500, fixture('error-500')),
      json(202, fixture('trigger-backup')),
    );
    const key = 'ci-run-4711-backup';

    const result = await makeClient().send(triggerBackup('db_orders', key));

    expect(result.status).toBe(202);
    expect(result.data).toEqual(fixture('trigger-backup'));
    expect(server.exchanges).toHaveLength(5);
    for (const ex of server.exchanges) {
      expect(`${ex.method} ${ex.path}`).toBe('POST /api/v1/databases/db_orders/backups');
      expect(ex.headers.get('idempotency-key')).toBe(key);
      expect(ex.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(ex.body)).toEqual({ trigger: 'adhoc' });
    }
    expect(sleeps).toHaveLength(4);
  });

  it('without a caller key, one random UUID is generated per logical request and reused by its retries', async () => {
    server.script(json(502, fixture('error-500')), json(202, fixture('trigger-backup')), json(504, fixture('error-500')), json(202, fixture('trigger-backup')));
    const api = makeClient();
    const op = { ...triggerBackup('db_orders', 'unused'), idempotencyKey: undefined };

    await api.send(op);
    await api.send(op);

    const keys = server.exchanges.map((e) => e.headers.get('idempotency-key'));
    expect(keys).toHaveLength(4);
    keys.forEach((k) => expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/));
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).toBe(keys[3]);
    expect(keys[0]).not.toBe(keys[2]);
  });

  it('a 409 for a mutation is not retried and keeps its exit code 6', async () => {
    server.otherwise(() => json(409, fixture('error-409')));

    const failure = await makeClient()
      .send(triggerBackup('db_orders', 'k-1'))
      .then(
        () => undefined,
        (e: unknown) => e,
      );

    expect(isCliError(failure) && failure.exitCode).toBe(6);
    expect(server.exchanges).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

/**
 * A 4xx answer is never reported as a network failure (cli-contract 4, v5; issue 34 item 3), through
 * the built CLI against a real HTTP server on loopback: a revoked token is exit 3 and a 404 exit 5,
 * each with the service's error and no "Could not reach" line (which once came before the real 401,
 * and once on a plain 404 of `svc recovery summary orders-prod`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { json, LoopbackServer } from '../support/loopback-server.js';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc } from '../support/built-cli.js';

let server: LoopbackServer;
beforeEach(async () => {
  server = await new LoopbackServer().start();
});
afterEach(async () => {
  await server.stop();
  cleanupBuiltCli();
});

const run = (args: string[]) => spawnSvc([...args, '--base-url', server.baseUrl], { env: cleanEnv({ SVC_API_KEY: 'svc_test_refused_0123456789' }) });

describe('refused, not unreachable (built CLI)', () => {
  it.each([
    { status: 401, body: 'error-401', args: ['databases', 'list'], code: 3 },
    { status: 404, body: 'error-404', args: ['recovery', 'summary', 'orders-prod'], code: 5 },
    { status: 401, body: 'error-401', args: ['mcp', 'serve', '--tools', 'list_databases'], code: 3 },
  ])(
    'HTTP $status to svc $args: exit $code, the service error, no "Could not reach"',
    async ({ status, body, args, code }) => {
      await ensureBuilt();
      server.otherwise(() => json(status, fixture(body), { 'x-request-id': 'req_refused' }));
      const r = await run(args);
      expect(r.exitCode, r.stderr).toBe(code);
      expect(r.stderr).toContain(fixture(body).error.message);
      expect(r.stderr).toContain(`(HTTP ${status})`);
      expect(r.stderr).not.toMatch(/Could not reach|UND_ERR|retrying/);
    },
    60_000,
  );
});

/**
 * Retries and pacing together (issue 29 item 6, cli-contract 6), through the built CLI against a real
 * HTTP server on loopback: a 429 that carries Retry-After and a spent RateLimit budget
 * (Remaining 0, Reset 1) is waited out by the retry, and the budget's own wait then has nothing left
 * to wait for. That path once left a settled wait behind, on which the next spent budget looped
 * without yielding to the event loop: a CPU at 100%, SIGTERM never handled, exit 8 never reached.
 * A process that spins is ended by the harness's timeout (SIGTERM, then SIGKILL), which these
 * assertions see as a signal, not an exit code.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { json, LoopbackServer } from '../support/loopback-server.js';
import { cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc, waitForOutput } from '../support/built-cli.js';

const TOKEN = 'svc_test_pacing_retry_token_0123456789';
const SPENT = { 'retry-after': '1', 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' };
const tooMany = () => json(429, fixture('error-429'), SPENT);

let server: LoopbackServer;
beforeEach(async () => {
  server = await new LoopbackServer().start();
});
afterEach(async () => {
  await server.stop();
  cleanupBuiltCli();
});

function databasesList(extra: string[] = [], timeoutMs = 30_000) {
  return spawnSvc(['databases', 'list', '--base-url', server.baseUrl, ...extra], {
    env: cleanEnv({ SVC_API_KEY: TOKEN }),
    timeoutMs,
  });
}

describe('429 with Retry-After and RateLimit-Remaining: 0 (built CLI, loopback server)', () => {
  it('two 429s, then 200: both are waited out, the data is printed, exit 0', async () => {
    await ensureBuilt();
    const page = fixture('databases-page2');
    server.script(tooMany(), tooMany(), json(200, page));

    const r = await databasesList();

    expect(r.isTerminated, `ended by ${r.signal}: it spun\n${r.stderr}`).toBe(false);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.match(/^Rate limited; retrying in \d+s \(\d\/4\)$/gm)).toHaveLength(2);
    for (const db of page.databases as { id: string }[]) expect(r.stdout).toContain(db.id);
    expect(server.exchanges).toHaveLength(3);
  }, 60_000);

  it('429 for ever with --max-retries 2: three attempts, then exit 8', async () => {
    await ensureBuilt();
    server.otherwise(() => tooMany());

    const r = await databasesList(['--max-retries', '2']);

    expect(r.isTerminated, `ended by ${r.signal}: it spun\n${r.stderr}`).toBe(false);
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.stderr).toContain('(2/2)');
    expect(server.exchanges).toHaveLength(3);
  }, 60_000);

  it('SIGTERM while waiting out a Retry-After after the budget was spent twice: exit 143', async () => {
    await ensureBuilt();
    server.otherwise(() => tooMany());
    const child = databasesList(['--max-retries', '20'], 60_000);

    // The third retry's wait: the budget has been found spent (and its wait found nothing to wait for) twice.
    await waitForOutput(child, 'stderr', /\(3\/20\)/, 30_000);
    child.kill('SIGTERM');
    const r = await child;

    expect(r.isTerminated, `ended by ${r.signal}\n${r.stderr}`).toBe(false);
    expect(r.exitCode, r.stderr).toBe(143);
  }, 90_000);
});

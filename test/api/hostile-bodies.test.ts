/**
 * Issue 11, defect 2: API response bodies are read with a bound (cli-contract 6: 16 MiB for a 2xx,
 * 64 KiB for an error body). Against a service whose body never ends, the built CLI stops reading,
 * ends on its own with the contract's exit code (1 for a 2xx, the status's own code otherwise,
 * 5xx after its retries), and its peak RSS stays under 256 MiB.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { hostileService, svcAgainst } from '../support/hostile-cli.js';
import { announcing, endless, MiB, openJson, SOCKET_BUFFERS_MAX } from '../support/hostile-server.js';
import { json } from '../support/loopback-server.js';
import { RSS_BUDGET_MIB } from '../support/peak-rss.js';

const TOKEN = 'svc_live_686f7374696c65626f64696573000000a1';
/** What a reader that stops at 64 KiB can still leave counted on the server: socket buffers, not the body. */
const ERROR_BODY_SENT_MAX = 64 * 1024 + SOCKET_BUFFERS_MAX;
/** A 2xx body is read up to 16 MiB; socket buffers come on top. */
const OK_BODY_SENT_MAX = 16 * MiB + SOCKET_BUFFERS_MAX;

const hostile = hostileService();
const peaks: string[] = [];
afterAll(() => console.info(`peak RSS of the built CLI against endless API bodies (MiB):\n  ${peaks.join('\n  ')}`));

/** The built CLI against the hostile service; it must end by itself (the spawn timeout is a hang detector, not a speed test). */
async function svc(args: string[]) {
  const r = await svcAgainst(hostile, TOKEN, args, { timeoutMs: 90_000, rss: true });
  // Every response has ended on the server's side too: svc hung up, nothing is still streaming.
  await vi.waitFor(() => expect(hostile.sent.every((s) => s.done)).toBe(true));
  const peakMiB = r.peakMiB!;
  const sentMiB = hostile.sent.map((s) => (s.bytes / MiB).toFixed(1)).join(' + ');
  peaks.push(`${peakMiB.toFixed(1)}  svc ${args.join(' ')}  (server sent ${sentMiB} MiB)`);
  return { ...r, peakMiB };
}

describe('an endless 2xx body: exit 1 after at most 16 MiB, not retried', () => {
  it('svc profile: a profile that never ends is dropped (response_too_large), peak RSS under 256 MiB', async () => {
    hostile.api('GET', '/profile', endless(200));
    const r = await svc(['profile']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: The response of getProfile (GET /api/v1/profile) is larger than 16 MiB; it was dropped.');
    expect(r.stderr).toContain('request id: req_endless_1');
    expect(r.stdout).toBe('');
    const [sent, ...more] = hostile.sentTo('/profile');
    expect(more).toEqual([]);
    expect(sent).toMatchObject({ status: 200, hungUp: true });
    expect(sent!.bytes).toBeGreaterThan(16 * MiB);
    expect(sent!.bytes).toBeLessThan(OK_BODY_SENT_MAX);
    expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
  });

  it('svc profile --json: the same failure as the JSON error envelope', async () => {
    hostile.api('GET', '/profile', announcing(2 ** 40, endless(200)));
    const r = await svc(['profile', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'response_too_large', status: 200, requestId: 'req_endless_1' });
    expect(hostile.sentTo('/profile')).toHaveLength(1);
    expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
  });

  it('svc databases list --all: an endless second page stops the walk with exit 1, nothing printed', async () => {
    hostile.api('GET', '/databases', (ex) =>
      ex.url.searchParams.get('cursor') === null ? json(200, fixture('databases-page1')) : endless(200, { prefix: openJson(fixture('databases-page2')) }),
    );
    const r = await svc(['databases', 'list', '--all']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The response of listDatabases (GET /api/v1/databases?cursor=cur_db_2) is larger than 16 MiB');
    expect(r.stdout).toBe('');
    expect(hostile.sentTo('/databases').map((s) => s.hungUp)).toEqual([false, true]);
    expect(hostile.sentTo('/databases')[1]!.bytes).toBeLessThan(OK_BODY_SENT_MAX);
    expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
  });

  it('svc backups trigger: an endless 202 is exit 1 and the mutation is not sent again', async () => {
    hostile.api('POST', '/databases/db_orders/backups', endless(202, { prefix: openJson(fixture('trigger-backup')) }));
    const r = await svc(['backups', 'trigger', 'db_orders']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is larger than 16 MiB; it was dropped.');
    expect(hostile.requestsTo('/databases/db_orders/backups')).toHaveLength(1);
    expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
  });

  it('svc api /profile: the raw command has the same bound', async () => {
    hostile.api('GET', '/profile', endless(200));
    const r = await svc(['api', '/profile']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The response of svc api (GET /api/v1/profile) is larger than 16 MiB');
    expect(r.stdout).toBe('');
    expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
  });
});

describe('an endless error body: 64 KiB read, the status decides the exit code', () => {
  it.each([
    [401, 3],
    [403, 4],
    [404, 5],
  ])('HTTP %i with a body that never ends: exit %i, one request, svc hung up after 64 KiB', async (status, exit) => {
    hostile.api('GET', '/profile', endless(status));
    const r = await svc(['profile']);
    expect(r.code).toBe(exit);
    expect(r.stderr).toContain(`HTTP ${status} from GET /api/v1/profile.`);
    const sent = hostile.sentTo('/profile');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ status, hungUp: true });
    expect(sent[0]!.bytes).toBeLessThan(ERROR_BODY_SENT_MAX);
    expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
  });

  it.each([500, 503])('HTTP %i with a body that never ends: retried 4 times (each cut off at 64 KiB), then exit 9', async (status) => {
    hostile.api('GET', '/profile', endless(status));
    const r = await svc(['profile']);
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(`HTTP ${status} from GET /api/v1/profile.`);
    const sent = hostile.sentTo('/profile');
    expect(sent).toHaveLength(5);
    for (const s of sent) {
      expect(s).toMatchObject({ status, hungUp: true });
      expect(s.bytes).toBeLessThan(ERROR_BODY_SENT_MAX);
    }
    expect(r.peakMiB).toBeLessThan(RSS_BUDGET_MIB);
  });

  it('HTTP 500 announcing 1 TiB with --json: exit 9, the envelope names the status', async () => {
    hostile.api('GET', '/databases', announcing(2 ** 40, endless(500)));
    const r = await svc(['databases', 'list', '--json', '--max-retries', '1']);
    expect(r.code).toBe(9);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error).toMatchObject({ code: 'http_500', status: 500 });
    expect(hostile.sentTo('/databases')).toHaveLength(2);
    expect(r.stdout).toBe('');
  });
});

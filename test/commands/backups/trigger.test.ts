import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { LoopbackServer } from '../../support/loopback-server.js';
import { runCli } from '../../support/run-cli.js';

const TOKEN = 'svc_test_trigger_0123456789abcdef';
const server = new LoopbackServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());

const cli = (...argv: string[]) => runCli([...argv, '--base-url', server.baseUrl], { env: { SVC_API_KEY: TOKEN } });
const posts = () => server.exchanges.filter((r) => r.method === 'POST');

/** getBackup answers walk through `states`, then stay at the last one. */
function backupWalk(states: Array<'queued' | 'running' | 'completed' | 'failed_terminal' | 'failed_retryable'>) {
  const completed = fixture('backup-get-completed');
  const failed = fixture('backup-get-failed');
  let i = 0;
  return http.get('*/api/v1/backups/bj_0010', () => {
    const state = states[Math.min(i++, states.length - 1)]!;
    const base = state === 'failed_terminal' ? failed : completed;
    const body = { ...base, id: 'bj_0010', state };
    if (state !== 'completed') delete (body as { artifact?: unknown }).artifact;
    if (state !== 'completed' && state !== 'failed_terminal') delete (body as { completedAt?: unknown }).completedAt;
    return HttpResponse.json(body, { headers: { 'X-Request-ID': `req_poll_${i}` } });
  });
}

describe('backups trigger', () => {
  beforeEach(() => {
    server.use(http.post('*/api/v1/databases/db_orders/backups', () => HttpResponse.json(fixture('trigger-backup'), { status: 202 })));
  });

  it('sends an adhoc body with a fresh UUID Idempotency-Key and prints the queued job', async () => {
    const r = await cli('backups', 'trigger', 'db_orders');
    expect(r.code).toBe(0);
    const [req] = posts();
    expect(JSON.parse(req!.body)).toEqual({ trigger: 'adhoc' });
    expect(req!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(req!.headers.get('content-type')).toBe('application/json');
    expect(r.stdout).toContain('bj_0010');
    expect(r.stdout).toContain('queued');
    const again = await cli('backups', 'trigger', 'db_orders');
    expect(again.code).toBe(0);
    expect(posts()[1]!.headers.get('idempotency-key')).not.toBe(req!.headers.get('idempotency-key'));
  });

  it('uses --idempotency-key as given, and a replayed 202 is success', async () => {
    const r1 = await cli('backups', 'trigger', 'db_orders', '--idempotency-key', 'nightly-2026-11-21', '--json');
    const r2 = await cli('backups', 'trigger', 'db_orders', '--idempotency-key', 'nightly-2026-11-21', '--json');
    expect([r1.code, r2.code]).toEqual([0, 0]);
    expect(posts().map((p) => p.headers.get('idempotency-key'))).toEqual(['nightly-2026-11-21', 'nightly-2026-11-21']);
    expect(JSON.parse(r2.stdout)).toEqual(fixture('trigger-backup'));
  });

  it.each([[''], ['x'.repeat(201)]])('refuses an idempotency key of %#: exit 2, nothing sent', async (key) => {
    const r = await cli('backups', 'trigger', 'db_orders', '--idempotency-key', key);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--idempotency-key');
    expect(server.exchanges).toHaveLength(0);
  });

  it('retries a 503 with the same Idempotency-Key', async () => {
    let calls = 0;
    server.use(
      http.post('*/api/v1/databases/db_orders/backups', () =>
        ++calls === 1 ? HttpResponse.json(fixture('error-500'), { status: 503 }) : HttpResponse.json(fixture('trigger-backup'), { status: 202 }),
      ),
    );
    const r = await cli('backups', 'trigger', 'db_orders');
    expect(r.code).toBe(0);
    const keys = posts().map((p) => p.headers.get('idempotency-key'));
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('409 is exit 6 and explains both causes', async () => {
    server.use(http.post('*/api/v1/databases/db_orders/backups', () => HttpResponse.json(fixture('error-409'), { status: 409 })));
    const r = await cli('backups', 'trigger', 'db_orders');
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('in flight');
    expect(r.stderr).toContain('different body');
    expect(r.stderr).toContain('req_409_1');
    expect(posts()).toHaveLength(1);
  });

  it("412 is exit 7 with the service's message and next action", async () => {
    server.use(http.post('*/api/v1/databases/db_orders/backups', () => HttpResponse.json(fixture('error-412'), { status: 412 })));
    const r = await cli('backups', 'trigger', 'db_orders');
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('The backup job is not completed.');
    expect(r.stderr).toContain('next action: Pick a completed backup');
    expect(r.stderr).toContain('req_412_1');
  });

  it('--wait follows queued, running, completed and prints size, checksum and the proof caveat', async () => {
    server.use(backupWalk(['queued', 'running', 'running', 'completed']));
    const r = await cli('backups', 'trigger', 'db_orders', '--wait');
    expect(r.code).toBe(0);
    const states = r.stderr.split('\n').filter((l) => l.startsWith('Backup bj_0010:'));
    expect(states).toEqual(['Backup bj_0010: queued', 'Backup bj_0010: running', 'Backup bj_0010: completed']);
    const artifact = fixture('backup-get-completed').artifact;
    expect(r.stdout).toContain(artifact.checksumSha256);
    expect(r.stdout).toContain(`${artifact.sizeBytes} bytes`);
    expect(r.stdout + r.stderr).toMatch(/not proof of recoverability/);
    expect(server.exchanges.filter((q) => q.method === 'GET')).toHaveLength(4);
  });

  it('--wait keeps waiting through failed_retryable and exits 12 on failed_terminal with the error', async () => {
    server.use(backupWalk(['queued', 'failed_retryable', 'failed_terminal']));
    const r = await cli('backups', 'trigger', 'db_orders', '--wait', '--json');
    expect(r.code).toBe(12);
    expect(JSON.parse(r.stdout).state).toBe('failed_terminal');
    const err = JSON.parse(r.stderr.trim().split('\n').at(-1)!);
    expect(err.error.code).toBe('job_failed');
    expect(err.error.message).toContain('source_unreachable');
  });

  it('--wait --jq on a job that fails: the filtered job on stdout, then exit 12 (jq answers after the render)', async () => {
    server.use(backupWalk(['queued', 'failed_terminal']));
    const r = await cli('backups', 'trigger', 'db_orders', '--wait', '--jq', '.state, .errorKind');
    expect(r.code).toBe(12);
    expect(r.stdout).toBe('failed_terminal\nsource_unreachable\n');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.code).toBe('job_failed');
  });

  it('--wait-timeout gives up with exit 9 and says the job goes on', async () => {
    server.use(backupWalk(['queued']));
    const r = await cli('backups', 'trigger', 'db_orders', '--wait', '--wait-timeout', '5');
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('still queued');
    expect(r.stderr).toContain('goes on');
  });

  it('never shows the token, even with --verbose', async () => {
    server.use(backupWalk(['queued', 'completed']));
    const r = await cli('backups', 'trigger', 'db_orders', '--wait', '--verbose');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('POST /api/v1/databases/db_orders/backups 202');
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });
});

describe('restore get --watch', () => {
  function restoreWalk(states: string[], last: 'restore-get' | 'restore-get-failed' = 'restore-get') {
    let i = 0;
    return http.get('*/api/v1/restores/rj_0001', () => {
      const state = states[Math.min(i++, states.length - 1)]!;
      const body = fixture(state === states.at(-1) ? last : 'restore-get');
      body.restoreJob.state = state;
      return HttpResponse.json(body);
    });
  }

  it('polls to completed and shows the proof flags', async () => {
    server.use(restoreWalk(['queued', 'downloading', 'restoring', 'completed']));
    const r = await cli('restore', 'get', 'rj_0001', '--watch');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Restore rj_0001: downloading');
    expect(r.stdout).toMatch(/proof: verified restore:\s+yes/);
    expect(r.stdout).toMatch(/proof: proven recoverability:\s+no/);
  });

  it('exit 12 when the restore job fails', async () => {
    server.use(restoreWalk(['queued', 'failed_terminal'], 'restore-get-failed'));
    const r = await cli('restore', 'get', 'rj_0001', '--watch');
    expect(r.code).toBe(12);
    expect(r.stderr).toContain('failed_terminal');
  });

  it('with --jq, a job that fails: the filtered job on stdout, then exit 12', async () => {
    server.use(restoreWalk(['queued', 'failed_terminal'], 'restore-get-failed'));
    const r = await cli('restore', 'get', 'rj_0001', '--watch', '--jq', '.restoreJob.state');
    expect(r.code).toBe(12);
    expect(r.stdout).toBe('failed_terminal\n');
  });
});

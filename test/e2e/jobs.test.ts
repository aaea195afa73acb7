/**
 * Mutations, waiting and interrupting, and `svc sandbox` itself. Signals and `svc sandbox` run the
 * built bin/svc as a child process; the rest runs in-process (run(argv, ctx), no process boundary
 * under test), where a --wait's 2 s polls are recorded instead of waited out (the sandbox advances a
 * triggered backup one state per poll, not by the clock).
 * Exit codes here: 0, 6, 7, 9 (wait timeout), 11 (no pg_restore), 12, 130.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLL_INTERVAL_MS } from '../../src/commands/shared/poll.js';
import {
  cleanupE2e,
  ensureBuilt,
  errorEnvelope,
  expectNoSecrets,
  REQUEST_ID_LINE,
  spawnSvc,
  startE2eSandbox,
  svcInProcess as svc,
  tempDir,
  waitForOutput,
  type E2eSandbox,
} from './helpers.js';

let sb: E2eSandbox;
/** A restore job created through the API: the sandbox keeps it `queued` forever. */
let queuedRestoreId: string;

const ARTIFACT_SHA = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';

beforeAll(async () => {
  await ensureBuilt();
  sb = await startE2eSandbox();
  const res = await request(`${sb.baseUrl}/api/v1/restores`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.token('full')}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({
      backupJobId: 'bj_0007',
      targetRedactedDsn: 'postgresql://app@127.0.0.1:5432/e2e_watch',
      mode: 'new_database',
      confirmDestructive: false,
    }),
  });
  expect(res.statusCode).toBe(202);
  queuedRestoreId = ((await res.body.json()) as { restoreJob: { id: string } }).restoreJob.id;
});

afterAll(async () => {
  await sb?.stop();
  cleanupE2e();
});

// One concurrent suite: the signal cases' child processes overlap everything else.
describe.concurrent('jobs, waits, interrupts and svc sandbox', () => {
  it('backups trigger (human): accepted, then the same idempotency key replays the same job; on another database it is exit 6', async () => {
    const key = `e2e-${randomUUID()}`;
    const first = await svc(['backups', 'trigger', 'db_orders', '--idempotency-key', key], { env: sb.env() });
    expect(first.code).toBe(0);
    const job = /^backup job: +(bj_\d+)$/m.exec(first.stdout)?.[1];
    expect(job).toBeDefined();
    expect(first.stdout).toMatch(/^state: +queued$/m);
    // The hint is for the reader: stderr.
    expect(first.stderr).toContain(`Follow it with: svc backups get ${job}`);
    expect(first.stdout).not.toContain('Follow it with');

    const replay = await svc(['backups', 'trigger', 'db_orders', '--idempotency-key', key, '--json'], { env: sb.env() });
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ backupJobId: job });

    const conflict = await svc(['backups', 'trigger', 'db_billing', '--idempotency-key', key], { env: sb.env() });
    expect(conflict).toMatchObject({ code: 6, stdout: '' });
    expect(conflict.stderr).toMatch(/^error: This idempotency key was already used with a different request body\.$/m);
    expect(conflict.stderr).toContain('(HTTP 409)');
  });

  it('backups trigger --json: the 202 body', async () => {
    const r = await svc(['backups', 'trigger', 'db_orders', '--json'], { env: sb.env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ backupJobId: expect.stringMatching(/^bj_\d+$/), state: 'queued', enqueuedAt: expect.any(String) });
  });

  it('backups trigger --wait follows queued -> completed (plain state lines on stderr) and shows the artifact (exit 0)', async () => {
    const sleeps: number[] = [];
    const r = await svc(['backups', 'trigger', 'db_orders', '--wait'], { env: sb.env(), sleeps });
    expect(r.code).toBe(0);
    // A poll every 2 s: one wait before each state after the first.
    expect(sleeps).toEqual([POLL_INTERVAL_MS, POLL_INTERVAL_MS, POLL_INTERVAL_MS]);
    const job = /^Backup (bj_\d+): claimed$/m.exec(r.stderr)?.[1];
    // One line per state, then the outcome with ✓ and the time waited, then the caveat: all on stderr.
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines.slice(0, 4)).toEqual(['claimed', 'running', 'finalizing', 'completed'].map((s) => `Backup ${job}: ${s}`));
    expect(lines[4]).toMatch(new RegExp(`^✓ Backup ${job}: completed \\(\\d+\\.\\ds\\)$`));
    expect(lines[5]).toContain('A completed backup is not proof of recoverability');
    // stdout: the job's data, the checksum once.
    expect(r.stdout).toMatch(new RegExp(`^id: +${job}$`, 'm'));
    expect(r.stdout).toMatch(/^state: +completed$/m);
    expect(r.stdout.split(ARTIFACT_SHA)).toHaveLength(2);
    expect(r.stdout).not.toContain('not proof');
  });

  it('backups trigger --wait --json: the final job detail on stdout', async () => {
    const r = await svc(['backups', 'trigger', 'db_orders', '--wait', '--json'], { env: sb.env(), sleeps: [] });
    expect(r.code).toBe(0);
    const job = JSON.parse(r.stdout);
    expect(job).toMatchObject({ protectedDatabaseId: 'db_orders', state: 'completed', trigger: 'adhoc', artifact: { checksumSha256: ARTIFACT_SHA } });
    expect(r.stderr).toContain(`Backup ${job.id}: completed`);
  });

  it('12: backups trigger --wait on the database whose backups fail', async () => {
    const r = await svc(['backups', 'trigger', 'db_billing', '--wait'], { env: sb.env(), sleeps: [] });
    expect(r.code).toBe(12);
    expect(r.stdout).toMatch(/^state: +failed_terminal$/m);
    expect(r.stdout).toMatch(/^error: +source_unreachable: The source database refused the connection\.$/m);
    expect(r.stderr).toMatch(/^error: Backup bj_\d+ ended failed_terminal: source_unreachable: The source database refused the connection\.$/m);
  });

  it('7: backups trigger on the paused database (412), human and --json', async () => {
    const r = await svc(['backups', 'trigger', 'db_analytics'], { env: sb.env() });
    expect(r).toMatchObject({ code: 7, stdout: '' });
    expect(r.stderr).toMatch(/^error: Protected database db_analytics is paused; ad-hoc backups need an active database\.$/m);
    expect(r.stderr).toMatch(/^ {2}next action: Resume the database in the dashboard/m);
    expect(r.stderr).toMatch(REQUEST_ID_LINE);
    const json = await svc(['backups', 'trigger', 'db_analytics', '--json'], { env: sb.env() });
    expect(json.code).toBe(7);
    expect(errorEnvelope(json.stderr)).toMatchObject({ code: 'precondition_failed', status: 412 });
  });

  it('130: SIGINT during backups trigger --wait stops the wait and says the job goes on', async () => {
    const child = spawnSvc(['backups', 'trigger', 'db_orders', '--wait'], { env: sb.env() });
    await waitForOutput(child, 'stderr', /Backup bj_\d+: claimed\n/);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr)).toMatch(/^✗ Backup bj_\d+: \w+ \(still waiting when svc stopped\) \(\d+\.\ds\)$/m);
    expect(String(r.stderr)).toMatch(/^error: Stopped waiting; Backup (bj_\d+) goes on at the service\. Check it again with: svc backups get \1$/m);
    expect(String(r.stdout)).toBe('');
    expectNoSecrets(`${r.stdout}${r.stderr}`);
  });

  // restore get --watch
  it('restore get --watch on a completed job: shown at once, exit 0', async () => {
    const r = await svc(['restore', 'get', 'rj_0001', '--watch'], { env: sb.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^state: +completed$/m);
    expect(r.stderr).toMatch(/^Restore rj_0001: completed\n✓ Restore rj_0001: completed \(\d+\.\ds\)\n$/);
  });

  it('9: restore get --watch on a queued job outlives a short --wait-timeout', async () => {
    const r = await svc(['restore', 'get', queuedRestoreId, '--watch', '--wait-timeout', '0.01'], { env: sb.env() });
    expect(r).toMatchObject({ code: 9, stdout: '' });
    expect(r.stderr).toContain(`error: Gave up waiting after 0s: Restore ${queuedRestoreId} is still queued.`);
    // The exact command to look again.
    expect(r.stderr).toContain(`The job goes on at the service. Check it again with: svc restore get --watch ${queuedRestoreId}`);
  });

  it('9: restore get --watch timeout as a --json envelope', async () => {
    const r = await svc(['restore', 'get', queuedRestoreId, '--watch', '--wait-timeout', '0.01', '--json'], { env: sb.env() });
    expect(r).toMatchObject({ code: 9, stdout: '' });
    expect(
      errorEnvelope(
        r.stderr
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .join(''),
      ),
    ).toMatchObject({ code: 'wait_timeout' });
  });

  // 128 + the signal's number (contract v2, section 5).
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s during restore get --watch: exit %i', async (signal, code) => {
    const child = spawnSvc(['restore', 'get', queuedRestoreId, '--watch'], { env: sb.env() });
    await waitForOutput(child, 'stderr', new RegExp(`Restore ${queuedRestoreId}: queued\\n`));
    child.kill(signal);
    const r = await child;
    expect(r.exitCode).toBe(code);
    expect(String(r.stderr)).toContain(`error: Stopped waiting; Restore ${queuedRestoreId} goes on at the service.`);
    expectNoSecrets(`${r.stdout}${r.stderr}`);
  });

  // restore create without the PostgreSQL client tools (no other test here POSTs /restores)
  it('11: restore create without the PostgreSQL client tools on PATH is found out before any request', async () => {
    const restoresBefore = sb.requests.filter((e) => e.path === '/api/v1/restores').length;
    const r = await svc(['restore', 'create', '--backup', 'bj_0007', '--target', 'postgresql://postgres@127.0.0.1:5432/e2e_nowhere'], {
      env: sb.env('full', { PATH: tempDir('empty-path') }),
    });
    expect(r).toMatchObject({ code: 11, stdout: '' });
    // pg_restore is looked for in the usual install directories too (the newest that reads the
    // archive is used); psql must be on PATH. Every tool missing is named, with the way to bring it in.
    expect(r.stderr).toMatch(
      /error: (Neither psql nor pg_restore is on PATH|pg_restore was not found on PATH or in the usual PostgreSQL install directories\. psql was not found on PATH)/,
    );
    expect(r.stderr).toMatch(/apt-get install postgresql-client|export PATH=\S+:"\$PATH"/);
    expect(sb.requests.filter((e) => e.path === '/api/v1/restores').length).toBe(restoresBefore);
  });

  // svc sandbox
  it('svc sandbox --port 0 --json: one document with the base URL, serves a real call, exits 0 on SIGINT', async () => {
    const child = spawnSvc(['sandbox', '--port', '0', '--json'], { env: sb.env(null), printsSecrets: true });
    const doc = JSON.parse(await waitForOutput(child, 'stdout', /\n}\n$/));
    expect(doc.notice).toContain('It is not the service');
    expect(doc.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const full = doc.tokens.find((t: { name: string }) => t.name === 'full').token;

    const call = await svc(['databases', 'get', 'db_orders', '--json'], { env: sb.env(null, { SVC_BASE_URL: doc.baseUrl, SVC_API_KEY: full }) });
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout).database.id).toBe('db_orders');

    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toMatch(/^GET \/api\/v1\/databases\/db_orders 200 \d+ms full req_[0-9a-f]+$/m);
    expect(String(r.stderr)).toMatch(/Sandbox stopped\.\n$/);
  });

  it('svc sandbox (human): a banner with the base URL, the tokens and how to use them; exits 0 on SIGINT', async () => {
    const child = spawnSvc(['sandbox', '--port', '0'], { env: sb.env(null), printsSecrets: true });
    // Data on stdout (base URL, tokens); the notice and the how-to on stderr.
    const [notes, banner] = await Promise.all([waitForOutput(child, 'stderr', /svc databases list --all\n/), waitForOutput(child, 'stdout', /^drill .*\n/m)]);
    expect(notes).toContain('It is not the service');
    expect(banner).not.toContain('It is not the service');
    for (const name of ['full', 'read-only', 'no-scope', 'expired', 'revoked', 'org-b', 'tiny-budget', 'drill'])
      expect(banner).toMatch(new RegExp(`^${name} `, 'm'));
    const baseUrl = /^base url: +(http:\/\/127\.0\.0\.1:\d+)$/m.exec(banner)?.[1];
    expect(notes).toContain(`export SVC_BASE_URL=${baseUrl}`);
    const res = await request(`${baseUrl}/api/v1/mcp/tools`, { headers: { authorization: `Bearer ${sb.token('no-scope')}` } });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    child.kill('SIGINT');
    expect((await child).exitCode).toBe(0);
  });

  it.each(['SIGTERM', 'SIGHUP'] as const)('svc sandbox stops cleanly on %s too (docker stop, a closed terminal): exit 0, port closed', async (signal) => {
    const child = spawnSvc(['sandbox', '--port', '0', '--json'], { env: sb.env(null), printsSecrets: true });
    const { baseUrl } = JSON.parse(await waitForOutput(child, 'stdout', /\n}\n$/));
    child.kill(signal);
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toMatch(/Sandbox stopped\.\n$/);
    await expect(request(`${baseUrl}/api/v1/profile`)).rejects.toThrow();
  });
});

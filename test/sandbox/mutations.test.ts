import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import * as operations from '../../src/api/operations.js';
import { api, clientFor, raw, restoreBody, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

let sb: TestSandbox;
let client: ApiClient;
beforeAll(async () => {
  sb = await startTestSandbox();
  client = clientFor(sb, 'full');
});
afterAll(async () => {
  await client.close();
  await sb.stop();
});

describe('triggerBackup and the backup lifecycle', () => {
  it('advances one state per getBackup poll up to completed, with the sandbox artifact', async () => {
    const { status, data } = await client.send(operations.triggerBackup('db_orders', 'life-1'));
    expect(status).toBe(202);
    expect(data).toEqual({ backupJobId: expect.stringMatching(/^bj_\d{4}$/), state: 'queued', enqueuedAt: '2026-11-21T12:00:00Z' });

    const listed = await client.send(operations.listDatabaseBackups('db_orders', {}));
    expect(listed.data.backupJobs[0]).toMatchObject({ id: data.backupJobId, state: 'queued', claimedAt: null });

    const states: string[] = [];
    for (let i = 0; i < 6; i++) {
      sb.clock.advance(1000);
      states.push((await client.send(operations.getBackup(data.backupJobId))).data.state);
    }
    expect(states).toEqual(['claimed', 'running', 'finalizing', 'completed', 'completed', 'completed']);

    const job = (await client.send(operations.getBackup(data.backupJobId))).data;
    expect(job).toMatchObject({
      organizationId: 'org_acme',
      protectedDatabaseId: 'db_orders',
      destinationId: 'dst_eu_s3',
      trigger: 'adhoc',
      claimedAt: '2026-11-21T12:00:01Z',
      startedAt: '2026-11-21T12:00:02Z',
      completedAt: '2026-11-21T12:00:04Z',
      artifact: {
        artifactKey: `org_acme/db_orders/${data.backupJobId}/dump.pgcustom`,
        sizeBytes: sb.artifact.sizeBytes,
        checksumSha256: sb.artifact.sha256,
      },
    });
    const evidence = await client.send(operations.getEvidence(data.backupJobId));
    expect(evidence.data.evidence).toMatchObject({ checksumSha256: sb.artifact.sha256, integrityVerification: null });
    const db = await client.send(operations.getDatabase('db_orders'));
    expect(db.data.database.lastSuccessfulBackupAt).toBe('2026-11-21T12:00:04Z');
  });

  it('db_billing backups fail: queued, claimed, running, then failed_terminal with errorKind and errorMessage', async () => {
    const { data } = await client.send(operations.triggerBackup('db_billing', 'life-fail'));
    const states: string[] = [];
    for (let i = 0; i < 4; i++) states.push((await client.send(operations.getBackup(data.backupJobId))).data.state);
    expect(states).toEqual(['claimed', 'running', 'failed_terminal', 'failed_terminal']);
    const job = (await client.send(operations.getBackup(data.backupJobId))).data;
    expect(job).toMatchObject({ errorKind: 'source_unreachable', errorMessage: expect.any(String) });
    expect(job.artifact).toBeUndefined();
    expect(job.completedAt).toBeUndefined();
    await expect(client.send(operations.getEvidence(data.backupJobId))).rejects.toMatchObject({ status: 404 });
  });

  it('fixture jobs are a snapshot and do not move', async () => {
    for (let i = 0; i < 3; i++) expect((await client.send(operations.getBackup('bj_0009'))).data.state).toBe('queued');
  });

  it('a paused database is 412 precondition_failed', async () => {
    const res = await raw(sb, 'POST', api('/databases/db_analytics/backups'), { body: { trigger: 'adhoc' } });
    expect(res.status).toBe(412);
    expect(res.json.error).toMatchObject({ code: 'precondition_failed', nextAction: expect.any(String) });
  });
});

describe('idempotency keys', () => {
  it('the same key and body replays the original 202', async () => {
    const first = await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: { trigger: 'adhoc' }, idempotencyKey: 'replay-1' });
    const again = await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: ' { "trigger" : "adhoc" } ', idempotencyKey: 'replay-1' });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.json).toEqual(first.json);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it('the client retrying a mutation with its key gets the same job', async () => {
    const a = await client.send(operations.triggerBackup('db_orders', 'replay-2'));
    const b = await client.send(operations.triggerBackup('db_orders', 'replay-2'));
    expect(b.data.backupJobId).toBe(a.data.backupJobId);
  });

  it('the same key with another body is 409 conflict', async () => {
    await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: {}, idempotencyKey: 'conflict-1' });
    const res = await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: { trigger: 'adhoc' }, idempotencyKey: 'conflict-1' });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('conflict');
  });

  it('the same key on another database or operation is 409 conflict', async () => {
    await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: {}, idempotencyKey: 'conflict-2' });
    expect((await raw(sb, 'POST', api('/databases/db_billing/backups'), { body: {}, idempotencyKey: 'conflict-2' })).status).toBe(409);
    expect((await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007'), idempotencyKey: 'conflict-2' })).status).toBe(409);
  });

  it('keys are per token', async () => {
    const a = await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: {}, idempotencyKey: 'per-token' });
    const b = await raw(sb, 'POST', api('/databases/db_orders/backups'), { token: 'tiny-budget', body: {}, idempotencyKey: 'per-token' });
    expect(b.status).toBe(202);
    expect(b.json.backupJobId).not.toBe(a.json.backupJobId);
  });

  it('createRestore replays the same job and coordinates, and 409s on another body', async () => {
    const first = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007'), idempotencyKey: 'restore-1' });
    const again = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007'), idempotencyKey: 'restore-1' });
    expect(again.json).toEqual(first.json);
    const other = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0005'), idempotencyKey: 'restore-1' });
    expect(other.status).toBe(409);
  });

  it('a rejected request is not remembered: fixed, it goes through with the same key', async () => {
    const bad = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0009'), idempotencyKey: 'restore-2' });
    expect(bad.status).toBe(412);
    const good = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007'), idempotencyKey: 'restore-2' });
    expect(good.status).toBe(202);
  });
});

describe('createRestore', () => {
  it('answers 202 with a queued job and execution coordinates of the real artifact', async () => {
    const { status, data } = await client.send(
      operations.createRestore(
        { backupJobId: 'bj_0007', targetRedactedDsn: 'postgresql://app@127.0.0.1:5432/orders_restored', mode: 'new_database', confirmDestructive: false },
        'create-1',
      ),
    );
    expect(status).toBe(202);
    expect(data.restoreJob).toMatchObject({
      databaseId: 'db_orders',
      mode: 'new_database',
      state: 'queued',
      finalizedAt: null,
      heartbeatAt: null,
      proof: { completedBackup: true, verifiedRestore: false, provenRecoverability: false },
    });
    const e = data.execution;
    expect(e.jobId).toBe(data.restoreJob.id);
    expect(e.jobId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(e.lockToken.length).toBeGreaterThanOrEqual(32);
    expect(e.presignedS3Url).toMatch(
      new RegExp(
        `^${sb.baseUrl}/artifacts/org_acme/db_orders/bj_0007/dump\\.pgcustom\\?X-Amz-Date=\\d{8}T\\d{6}Z&X-Amz-Expires=900&X-Amz-Signature=[0-9a-f]{64}$`,
      ),
    );
    expect(e.manifestObjectKey).toBe('org_acme/db_orders/bj_0007/manifest.json');
    expect(e).toMatchObject({ expectedSizeBytes: sb.artifact.sizeBytes, expectedSha256: sb.artifact.sha256 });

    // No REST operation reports client-local progress, so the job stays queued.
    const got = await client.send(operations.getRestore(data.restoreJob.id));
    expect(got.data.restoreJob).toEqual(data.restoreJob);
  });

  it('each creation gets a fresh job id and lock token', async () => {
    const a = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007') });
    const b = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007') });
    expect(a.json.execution.jobId).not.toBe(b.json.execution.jobId);
    expect(a.json.execution.lockToken).not.toBe(b.json.execution.lockToken);
  });

  it.each([
    ['failed', 'bj_0006'],
    ['running', 'bj_0008'],
    ['queued', 'bj_0009'],
  ])('a %s backup is 412 precondition_failed', async (state, id) => {
    const res = await raw(sb, 'POST', api('/restores'), { body: restoreBody(id) });
    expect(res.status).toBe(412);
    expect(res.json.error).toMatchObject({ code: 'precondition_failed', message: expect.stringContaining(state) });
  });

  it('maps 412 to exit code 7 in the client', async () => {
    await expect(
      client.send(
        operations.createRestore(
          { backupJobId: 'bj_0009', targetRedactedDsn: 'postgresql://app@127.0.0.1:5432/x', mode: 'new_database', confirmDestructive: false },
          'exit-7',
        ),
      ),
    ).rejects.toMatchObject({ status: 412, exitCode: 7 });
  });

  it('a backup triggered in the sandbox can be restored once completed', async () => {
    const { data } = await client.send(operations.triggerBackup('db_orders', 'restore-after-trigger'));
    expect((await raw(sb, 'POST', api('/restores'), { body: restoreBody(data.backupJobId) })).status).toBe(412);
    for (let i = 0; i < 4; i++) await client.send(operations.getBackup(data.backupJobId));
    const res = await raw(sb, 'POST', api('/restores'), { body: restoreBody(data.backupJobId) });
    expect(res.status).toBe(202);
    expect(res.json.execution.expectedSha256).toBe(sb.artifact.sha256);
  });

  it('the new restore job is visible to its organization only', async () => {
    const res = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007') });
    expect((await raw(sb, 'GET', api(`/restores/${res.json.restoreJob.id}`), { token: 'read-only' })).status).toBe(403);
    expect((await raw(sb, 'GET', api(`/restores/${res.json.restoreJob.id}`), { token: 'org-b' })).status).toBe(404);
    expect(sb.internalErrors).toEqual([]);
  });
});

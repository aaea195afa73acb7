import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import * as operations from '../../src/api/operations.js';
import { OPERATION_TABLE as ROUTES, type OperationName } from '../../src/api/operation-table.js';
import { fixture } from '../support/fixtures.js';
import { samples } from '../support/operation-samples.js';
import { clientFor, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

/**
 * "The sandbox and the client cannot drift apart": every operation of src/api/operations.ts, built by
 * the client's own factory and sent by its own ApiClient, must answer 2xx with a body that passes the
 * client's response schema.
 */
let sb: TestSandbox;
let client: ApiClient;

/** A fresh sandbox per describe block: mutations of one block never show in another. */
function freshSandbox(): void {
  beforeAll(async () => {
    sb = await startTestSandbox();
    client = clientFor(sb, 'full');
  });
  afterAll(async () => {
    await client.close();
    await sb.stop();
  });
}

describe('every client operation against the sandbox', () => {
  freshSandbox();
  const names = Object.keys(operations).sort();

  it('covers exactly the operations of src/api/operations.ts', () => {
    expect(Object.keys(ROUTES).sort()).toEqual(names);
    expect(Object.keys(samples).sort()).toEqual(names);
  });

  it.each(names)('%s answers its success status with a body the client accepts', async (name) => {
    const op = samples[name as OperationName]();
    const route = ROUTES[name as OperationName];
    expect(op.method).toBe(route.method);
    const result = await client.send(op); // throws ContractError on a schema mismatch
    expect(result.status).toBe(route.success);
    expect(result.requestId).toMatch(/^req_[0-9a-f]{24}$/);
    expect(sb.internalErrors).toEqual([]);
  });
});

describe('organization A is the unit-test fixtures', () => {
  freshSandbox();
  it('lists the databases of databases-page1/page2 in the same pages', async () => {
    const p1 = await client.send(operations.listDatabases({}));
    expect(p1.data.databases).toEqual(fixture('databases-page1').databases);
    const p2 = await client.send(operations.listDatabases({ cursor: p1.data.nextCursor! }));
    expect(p2.data.databases).toEqual(fixture('databases-page2').databases);
    expect(p2.data.nextCursor).toBeNull();
  });

  it('answers the get fixtures as they are', async () => {
    expect((await client.send(operations.getDatabase('db_orders'))).data).toEqual(fixture('database-get'));
    expect((await client.send(operations.getDestination('dst_eu_s3'))).data).toEqual(fixture('destination-get'));
    expect((await client.send(operations.listDestinations({}))).data).toEqual({ ...fixture('destinations-list'), nextCursor: null });
    expect((await client.send(operations.getBackup('bj_0006'))).data).toEqual(fixture('backup-get-failed'));
    expect((await client.send(operations.getRestore('rj_0001'))).data).toEqual(fixture('restore-get'));
    expect((await client.send(operations.getRecoverySummary('db_orders'))).data).toEqual(fixture('recovery-summary'));
    expect((await client.send(operations.getMcpToolCatalog())).data).toEqual(fixture('tools'));
    const { expiresAt: _e, ...profile } = fixture('profile').profile;
    expect((await client.send(operations.getProfile())).data.profile).toEqual({ ...profile, expiresAt: '2027-02-19T12:00:00Z' });
  });

  it('derives the recovery candidate of the fixture for the fixture incident time', async () => {
    const res = await client.send(operations.getRecoveryCandidate('db_orders', '2026-11-21T12:00:00Z'));
    expect(res.data).toEqual(fixture('recovery-candidate'));
  });

  it('lists the backups-list jobs, with the failed job of backup-get-failed before them', async () => {
    const res = await client.send(operations.listDatabaseBackups('db_orders', {}));
    // Newest first, as a high-watermark keyset pages (cli-contract 4, v4); the fixture lists oldest first.
    expect(res.data.backupJobs.map((b) => b.id)).toEqual(['bj_0009', 'bj_0008', 'bj_0007', 'bj_0006']);
    expect(res.data.backupJobs.slice(0, 3)).toEqual([...fixture('backups-list').backupJobs].reverse());
  });

  it('replaces only the artifact size and digest with the real sandbox artifact', async () => {
    const { sizeBytes, sha256 } = sb.artifact;
    const real = { sizeBytes, checksumSha256: sha256 };

    const completed = fixture('backup-get-completed');
    expect((await client.send(operations.getBackup('bj_0007'))).data).toEqual({ ...completed, artifact: { ...completed.artifact, ...real } });

    const evidence = fixture('evidence-list');
    const listed = await client.send(operations.listEvidence({ databaseId: 'db_orders' }));
    expect(listed.data.evidence).toEqual([{ ...evidence.evidence[0], ...real }]);
    expect(listed.data.proofSemantics).toEqual(evidence.proofSemantics);
    expect((await client.send(operations.getEvidence('bj_0007'))).data).toEqual({
      ...fixture('evidence-get'),
      evidence: { ...fixture('evidence-get').evidence, ...real },
    });

    const proof = fixture('recovery-proof');
    expect((await client.send(operations.getRecoveryWindowProof('rw_0003'))).data).toEqual({
      ...proof,
      proof: { ...proof.proof, baselineArtifact: { ...proof.proof.baselineArtifact, checksumSha256: sha256 } },
    });
  });

  it("db_billing's completed backup bj_0005 describes the billing archive wherever its artifact appears", async () => {
    const billing = sb.artifacts.billing!;
    expect(billing.sha256).not.toBe(sb.artifact.sha256);
    const real = { sizeBytes: billing.sizeBytes, checksumSha256: billing.sha256 };

    expect((await client.send(operations.getBackup('bj_0005'))).data.artifact).toMatchObject(real);
    const billingEvidence = fixture('evidence-list').evidence[1];
    expect((await client.send(operations.getEvidence('bj_0005'))).data.evidence).toEqual({ ...billingEvidence, ...real });
    const proof = (await client.send(operations.getRecoveryWindowProof('rw_0002'))).data;
    expect(proof.proof.baselineArtifact).toEqual({ backupJobId: 'bj_0005', retained: true, checksumSha256: billing.sha256 });
  });
});

describe('recovery windows for the incident path', () => {
  freshSandbox();

  /** The window's proof names a backup: the one `svc restore create --window` restores. */
  const baselineOf = async (windowId: string) => (await client.send(operations.getRecoveryWindowProof(windowId))).data.proof.baselineArtifact.backupJobId;

  it.each([
    ['db_orders', 'rw_0003', 'bj_0007'],
    ['db_billing', 'rw_0002', 'bj_0005'],
  ])("%s: summary and candidate name %s, whose baseline %s is the database's newest completed backup", async (databaseId, windowId, backupJobId) => {
    const summary = (await client.send(operations.getRecoverySummary(databaseId))).data;
    expect(summary.latest).toMatchObject({ windowId, databaseId, restoreAvailable: true });
    const candidate = (await client.send(operations.getRecoveryCandidate(databaseId, '2026-11-21T12:00:00Z'))).data;
    expect(candidate.recommended).toMatchObject({ windowId, databaseId });
    expect(await baselineOf(windowId)).toBe(backupJobId);

    const listed = (await client.send(operations.listDatabaseBackups(databaseId, {}))).data.backupJobs;
    const details = await Promise.all(listed.map(async ({ id }) => (await client.send(operations.getBackup(id))).data));
    const newest = details.filter((b) => b.state === 'completed' && b.artifact).sort((a, b) => Date.parse(b.completedAt!) - Date.parse(a.completedAt!))[0];
    expect(newest?.id).toBe(backupJobId);
  });

  it('a database without windows keeps its answers: no window, no candidate; an unknown database is 404', async () => {
    const summary = (await client.send(operations.getRecoverySummary('db_analytics'))).data;
    expect(summary).toMatchObject({ databaseId: 'db_analytics', latest: null, reason: 'no_recovery_window' });
    const candidate = (await client.send(operations.getRecoveryCandidate('db_analytics', '2026-11-21T12:00:00Z'))).data;
    expect(candidate).toMatchObject({ recommended: null, reason: 'no_restore_ready_window' });
    await expect(client.send(operations.getRecoverySummary('db_missing'))).rejects.toMatchObject({ status: 404, exitCode: 5 });
  });

  it('an incident before the billing snapshot has no candidate', async () => {
    const candidate = (await client.send(operations.getRecoveryCandidate('db_billing', '2026-11-19T01:00:00Z'))).data;
    expect(candidate.recommended).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import * as operations from '../../src/api/operations.js';
import { OPERATION_TABLE as ROUTES, type OperationName } from '../../src/api/operation-table.js';
import { api, clientFor, raw, restoreBody, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.stop());

/** One request per operation, for scope checks. */
const requests: Record<OperationName, { method: 'GET' | 'POST'; path: string; body?: object }> = {
  getProfile: { method: 'GET', path: '/profile' },
  listDatabases: { method: 'GET', path: '/databases' },
  getDatabase: { method: 'GET', path: '/databases/db_orders' },
  listDestinations: { method: 'GET', path: '/destinations' },
  getDestination: { method: 'GET', path: '/destinations/dst_eu_s3' },
  listDatabaseBackups: { method: 'GET', path: '/databases/db_orders/backups' },
  triggerBackup: { method: 'POST', path: '/databases/db_orders/backups', body: {} },
  getBackup: { method: 'GET', path: '/backups/bj_0007' },
  listEvidence: { method: 'GET', path: '/evidence' },
  getEvidence: { method: 'GET', path: '/evidence/bj_0007' },
  createRestore: { method: 'POST', path: '/restores', body: restoreBody('bj_0007') },
  getRestore: { method: 'GET', path: '/restores/rj_0001' },
  getRecoverySummary: { method: 'GET', path: '/databases/db_orders/recovery/summary' },
  getRecoveryCandidate: { method: 'GET', path: '/databases/db_orders/recovery/candidate?incidentTime=2026-11-21T12:00:00Z' },
  getRecoveryWindowProof: { method: 'GET', path: '/recovery/windows/rw_0003/proof' },
  getMcpToolCatalog: { method: 'GET', path: '/mcp/tools' },
};
const names = Object.keys(requests) as OperationName[];

describe('the demo tokens', () => {
  it('are fixed svc_sandbox_<hex> values with a purpose', () => {
    expect(sb.tokens.map((t) => t.name)).toEqual(['full', 'read-only', 'no-scope', 'expired', 'revoked', 'org-b', 'tiny-budget', 'drill']);
    for (const t of sb.tokens) {
      expect(t.token).toMatch(/^svc_sandbox_[0-9a-f]{32}$/);
      expect(t.purpose.length).toBeGreaterThan(10);
    }
    expect(sb.token('full')).toBe('svc_sandbox_3eb1d95aaff52a54cd98169b4d6d4c70');
  });

  it('full: every operation answers', async () => {
    for (const name of names) {
      const r = requests[name];
      expect((await raw(sb, r.method, api(r.path), { token: 'full', body: r.body })).status, name).toBe(ROUTES[name].success);
    }
  });

  it.each([
    ['read-only', ['databases:read']],
    ['no-scope', []],
    ['drill', ['databases:read', 'restores:read', 'restores:write']],
  ])('%s: operations outside its scopes are 403 forbidden with requiredScope and nextAction', async (token, scopes) => {
    for (const name of names) {
      const r = requests[name];
      const scope = ROUTES[name].scope;
      const res = await raw(sb, r.method, api(r.path), { token, body: r.body });
      if (scope === null || scopes.includes(scope)) {
        expect(res.status, name).toBe(ROUTES[name].success);
        continue;
      }
      expect(res.status, name).toBe(403);
      expect(res.json.error).toMatchObject({ code: 'forbidden', requiredScope: scope, nextAction: expect.stringContaining(scope) });
    }
  });

  it('no-scope: getProfile shows an empty scope list, which the client accepts', async () => {
    const client = clientFor(sb, 'no-scope');
    const { data } = await client.send(operations.getProfile());
    expect(data.profile.scopes).toEqual([]);
    expect(data.profile.expiresAt).toBeUndefined();
    await client.close();
  });

  it('read-only is an agent token with an expiry', async () => {
    const res = await raw(sb, 'GET', api('/profile'), { token: 'read-only' });
    expect(res.json.profile).toMatchObject({ clientKind: 'mcp_external', autonomyLevel: 'read_only', expiresAt: '2026-12-21T12:00:00Z' });
  });

  it.each(['expired', 'revoked'])('%s: every operation, even getProfile, is 401 unauthorized', async (token) => {
    for (const name of names) {
      const r = requests[name];
      const res = await raw(sb, r.method, api(r.path), { token, body: r.body });
      expect(res.status, name).toBe(401);
      expect(res.json.error.code).toBe('unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it.each([
    ['no Authorization header', undefined],
    ['an unknown token', 'Bearer svc_sandbox_00000000000000000000000000000000'],
    ['another scheme', `Basic ${Buffer.from('svc:svc').toString('base64')}`],
    ['an empty bearer', 'Bearer '],
  ])('%s is 401 unauthorized', async (_what, authorization) => {
    const res = await raw(sb, 'GET', api('/profile'), authorization === undefined ? { token: null } : { authorization });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('unauthorized');
  });

  it('expires tokens on the sandbox clock', async () => {
    const local = await startTestSandbox();
    try {
      expect((await raw(local, 'GET', api('/profile'), { token: 'read-only' })).status).toBe(200);
      local.clock.advance(30 * 86400 * 1000);
      expect((await raw(local, 'GET', api('/profile'), { token: 'read-only' })).status).toBe(401);
    } finally {
      await local.stop();
    }
  });

  it('maps 401 and 403 to the client errors the CLI turns into exit codes 3 and 4', async () => {
    const expired = clientFor(sb, 'expired');
    await expect(expired.send(operations.getProfile())).rejects.toMatchObject({ status: 401, exitCode: 3 });
    const readOnly = clientFor(sb, 'read-only');
    const err = await readOnly.send(operations.listEvidence({})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ exitCode: 4, details: { requiredScope: 'evidence:read' } });
    await Promise.all([expired.close(), readOnly.close()]);
  });
});

describe('organization B', () => {
  const strip = (res: { status: number; json: any }) => ({ status: res.status, error: { ...res.json.error, requestId: undefined } });

  it('sees only its own database, destination, backups and evidence', async () => {
    const dbs = await raw(sb, 'GET', api('/databases'), { token: 'org-b' });
    expect(dbs.json.databases.map((d: { id: string }) => d.id)).toEqual(['db_ledger']);
    const dsts = await raw(sb, 'GET', api('/destinations'), { token: 'org-b' });
    expect(dsts.json.destinations.map((d: { id: string }) => d.id)).toEqual(['dst_globex_wasabi']);
    const ev = await raw(sb, 'GET', api('/evidence'), { token: 'org-b' });
    expect(ev.json.evidence.map((e: { backupJobId: string }) => e.backupJobId)).toEqual(['bj_0004']);
    expect((await raw(sb, 'GET', api('/profile'), { token: 'org-b' })).json.profile.organizationSlug).toBe('globex');
  });

  it.each([
    ['/databases/db_orders', '/databases/db_missing'],
    ['/destinations/dst_eu_s3', '/destinations/dst_missing'],
    ['/databases/db_orders/backups', '/databases/db_missing/backups'],
    ['/backups/bj_0007', '/backups/bj_missing'],
    ['/evidence/bj_0007', '/evidence/bj_missing'],
    ['/restores/rj_0001', '/restores/rj_missing'],
    ['/databases/db_orders/recovery/summary', '/databases/db_missing/recovery/summary'],
    ['/databases/db_orders/recovery/candidate?incidentTime=2026-11-21T12:00:00Z', '/databases/db_missing/recovery/candidate?incidentTime=2026-11-21T12:00:00Z'],
    ['/recovery/windows/rw_0003/proof', '/recovery/windows/rw_missing/proof'],
  ])("organization A's %s answers exactly like a missing id", async (foreign, missing) => {
    const a = await raw(sb, 'GET', api(foreign), { token: 'org-b' });
    const b = await raw(sb, 'GET', api(missing), { token: 'org-b' });
    expect(a.status).toBe(404);
    expect(strip(a)).toEqual(strip(b));
    expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
  });

  it("cannot trigger a backup of, or restore, organization A's resources", async () => {
    const trigger = await raw(sb, 'POST', api('/databases/db_orders/backups'), { token: 'org-b', body: {} });
    const triggerMissing = await raw(sb, 'POST', api('/databases/db_missing/backups'), { token: 'org-b', body: {} });
    expect(strip(trigger)).toEqual(strip(triggerMissing));
    expect(trigger.status).toBe(404);
    const restore = await raw(sb, 'POST', api('/restores'), { token: 'org-b', body: restoreBody('bj_0007') });
    const restoreMissing = await raw(sb, 'POST', api('/restores'), { token: 'org-b', body: restoreBody('bj_missing') });
    expect(restore.status).toBe(404);
    expect(strip(restore)).toEqual(strip(restoreMissing));
  });

  it("and organization A cannot see B's", async () => {
    expect((await raw(sb, 'GET', api('/databases/db_ledger'))).status).toBe(404);
    expect((await raw(sb, 'GET', api('/backups/bj_0004'))).status).toBe(404);
  });

  it('listEvidence with a database of another organization is a terminal empty 200 page, before the cursor is checked', async () => {
    for (const query of ['databaseId=db_orders', 'databaseId=db_missing', 'databaseId=db_orders&cursor=not-a-cursor']) {
      const res = await raw(sb, 'GET', api(`/evidence?${query}`), { token: 'org-b' });
      expect(res.status, query).toBe(200);
      expect(res.json.evidence).toEqual([]);
      expect(res.json.nextCursor).toBeNull();
      expect(res.json.proofSemantics.completedBackup).toEqual(expect.any(String));
    }
  });

  it('listDatabaseBackups checks ownership before the cursor: 404, not 400', async () => {
    const res = await raw(sb, 'GET', api('/databases/db_orders/backups?cursor=not-a-cursor'), { token: 'org-b' });
    expect(res.status).toBe(404);
  });

  it("refuses organization A's cursors", async () => {
    const a = await raw(sb, 'GET', api('/databases?limit=1'));
    const res = await raw(sb, 'GET', api(`/databases?cursor=${encodeURIComponent(a.json.nextCursor)}`), { token: 'org-b' });
    expect(res.status).toBe(400);
  });
});

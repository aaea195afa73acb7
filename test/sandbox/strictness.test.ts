import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { errorBody } from '../../src/api/schemas/errors.js';
import { api, raw, restoreBody, startTestSandbox, type RawResponse, type TestSandbox } from '../support/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.stop());

/** The error body of api-v1.md 2.12, with the request id also in X-Request-ID. */
function expectError(res: RawResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(z.strictObject(errorBody().shape).parse(res.json).error.code).toBe(code);
  expect(res.json.error.requestId).toMatch(/^req_[0-9a-f]{24}$/);
  expect(res.headers['x-request-id']).toBe(res.json.error.requestId);
}

describe('400 invalid_request', () => {
  it.each([
    ['an unknown property', { trigger: 'adhoc', priority: 'high' }],
    ['a trigger other than adhoc', { trigger: 'scheduled' }],
    ['an array', []],
  ])('triggerBackup rejects %s', async (_what, body) => {
    expectError(await raw(sb, 'POST', api('/databases/db_orders/backups'), { body }), 400, 'invalid_request');
  });

  it('triggerBackup rejects a missing or non-JSON body but takes an empty object', async () => {
    expectError(await raw(sb, 'POST', api('/databases/db_orders/backups')), 400, 'invalid_request');
    expectError(await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: 'trigger=adhoc' }), 400, 'invalid_request');
    expect((await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: {} })).status).toBe(202);
  });

  it.each([
    ['an unknown property', restoreBody('bj_0007', { targetDsn: 'postgresql://app:pw@db/x' })],
    ['a missing field', { backupJobId: 'bj_0007', mode: 'new_database', confirmDestructive: false }],
    ['a wrong type', restoreBody('bj_0007', { confirmDestructive: 'yes' })],
    ['an unknown mode', restoreBody('bj_0007', { mode: 'clone' })],
    ['in_place without confirmDestructive true', restoreBody('bj_0007', { mode: 'in_place', confirmDestructive: false })],
    ['a target DSN with a password', restoreBody('bj_0007', { targetRedactedDsn: 'postgresql://app:secret@127.0.0.1/x' })],
  ])('createRestore rejects %s', async (_what, body) => {
    const res = await raw(sb, 'POST', api('/restores'), { body });
    expectError(res, 400, 'invalid_request');
    expect(res.text).not.toContain('secret');
  });

  it('accepts in_place with confirmDestructive true', async () => {
    const res = await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007', { mode: 'in_place', confirmDestructive: true }) });
    expect(res.status).toBe(202);
    expect(res.json.restoreJob.mode).toBe('in_place');
  });

  it.each(['0', '101', '-1', '2.5', 'abc', '1e1', ' 2', ''])('rejects limit=%j', async (limit) => {
    expectError(await raw(sb, 'GET', api(`/databases?limit=${encodeURIComponent(limit)}`)), 400, 'invalid_request');
  });

  it.each(['1', '100'])('accepts limit=%s', async (limit) => {
    expect((await raw(sb, 'GET', api(`/destinations?limit=${limit}`))).status).toBe(200);
  });

  it('rejects a cursor the sandbox did not issue, or issued for another list', async () => {
    expectError(await raw(sb, 'GET', api('/databases?cursor=cur_db_2')), 400, 'invalid_request');
    const first = await raw(sb, 'GET', api('/databases?limit=1'));
    const cursor: string = first.json.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const forged = `${Buffer.from('1').toString('base64url')}.${cursor.split('.')[1]}`;
    expectError(await raw(sb, 'GET', api(`/databases?cursor=${encodeURIComponent(forged)}`)), 400, 'invalid_request');
    expectError(await raw(sb, 'GET', api(`/destinations?cursor=${encodeURIComponent(cursor)}`)), 400, 'invalid_request');
    expectError(await raw(sb, 'GET', api(`/evidence?cursor=${encodeURIComponent(cursor)}`)), 400, 'invalid_request');
    expect((await raw(sb, 'GET', api(`/databases?cursor=${encodeURIComponent(cursor)}`))).status).toBe(200);
  });

  it('binds a backups cursor to its database', async () => {
    const first = await raw(sb, 'GET', api('/databases/db_orders/backups?limit=1'));
    const cursor = encodeURIComponent(first.json.nextCursor);
    expectError(await raw(sb, 'GET', api(`/databases/db_billing/backups?cursor=${cursor}`)), 400, 'invalid_request');
  });

  it.each(['yesterday', '2026-11-21', '2026-11-21T12:00:00', '2026-13-01T00:00:00Z', ''])('rejects incidentTime=%j', async (t) => {
    expectError(await raw(sb, 'GET', api(`/databases/db_orders/recovery/candidate?incidentTime=${encodeURIComponent(t)}`)), 400, 'invalid_request');
  });

  it('requires incidentTime, and takes an offset', async () => {
    expectError(await raw(sb, 'GET', api('/databases/db_orders/recovery/candidate')), 400, 'invalid_request');
    const ok = await raw(sb, 'GET', api(`/databases/db_orders/recovery/candidate?incidentTime=${encodeURIComponent('2026-11-21T13:00:00+01:00')}`));
    expect(ok.status).toBe(200);
    expect(ok.json.recommended.gapBeforeIncidentSeconds).toBe(900);
  });

  it.each([
    ['missing', null],
    ['empty', ''],
    ['over 200 characters', 'k'.repeat(201)],
  ])('mutations refuse an Idempotency-Key that is %s', async (_what, key) => {
    const headers: Record<string, string> = key === null ? {} : { 'idempotency-key': key };
    const idem = key === null ? null : undefined;
    expectError(await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: {}, headers, idempotencyKey: idem }), 400, 'invalid_request');
    expectError(await raw(sb, 'POST', api('/restores'), { body: restoreBody('bj_0007'), headers, idempotencyKey: idem }), 400, 'invalid_request');
  });

  it('takes an Idempotency-Key of exactly 200 characters', async () => {
    expect((await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: {}, idempotencyKey: 'k'.repeat(200) })).status).toBe(202);
  });

  it('refuses unknown or repeated query parameters and a body on a GET', async () => {
    expectError(await raw(sb, 'GET', api('/databases?page=2')), 400, 'invalid_request');
    expectError(await raw(sb, 'GET', api('/databases?limit=1&limit=2')), 400, 'invalid_request');
    expectError(await raw(sb, 'GET', api('/profile?verbose=1')), 400, 'invalid_request');
    expectError(await raw(sb, 'GET', api('/evidence?databaseId=')), 400, 'invalid_request');
    expectError(await raw(sb, 'POST', api('/profile'), { body: {} }), 405, 'method_not_allowed');
  });
});

describe('404 and routing', () => {
  it.each([
    ['/databases/db_nope'],
    ['/destinations/dst_nope'],
    ['/databases/db_nope/backups'],
    ['/backups/bj_9999'],
    ['/evidence/bj_0008'],
    ['/restores/rj_9999'],
    ['/databases/db_nope/recovery/summary'],
    ['/databases/db_nope/recovery/candidate?incidentTime=2026-11-21T12:00:00Z'],
    ['/recovery/windows/rw_9999/proof'],
    ['/nope'],
    ['/databases/db_orders/extra'],
    ['/databases/'],
  ])('GET %s is 404 not_found', async (path) => {
    expectError(await raw(sb, 'GET', api(path)), 404, 'not_found');
  });

  it('answers 404 outside /api/v1, without asking for a token', async () => {
    expectError(await raw(sb, 'GET', '/', { token: null }), 404, 'not_found');
    expectError(await raw(sb, 'GET', '/v1/profile', { token: null }), 404, 'not_found');
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await raw(sb, 'DELETE', api('/databases/db_orders'));
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET');
  });

  it('carries X-Request-ID on every response, success or error', async () => {
    for (const res of [await raw(sb, 'GET', api('/profile')), await raw(sb, 'GET', api('/profile'), { token: null }), await raw(sb, 'GET', '/elsewhere')]) {
      expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    }
  });

  it('never sent a body that fails the client schemas', () => {
    expect(sb.internalErrors).toEqual([]);
  });
});

/**
 * Least privilege in a drill (cli-contract 9.9 and 7.14), with the built CLI and a real scratch
 * cluster. db_billing's backups serve a dump with a planted function: an ordinary role's table has
 * a CHECK constraint calling PL/pgSQL that runs `COPY ... TO PROGRAM 'touch <marker>'` when a
 * superuser runs it, and logs who ran it. db_orders' backups serve a dump that holds:
 * - Supabase's pattern: pgcrypto in a schema `extensions`, policies `TO authenticated` and
 *   `TO anon, "b c"`, a function with `SET role TO 'anon'`;
 * - an event trigger, which only a superuser may create, and its comment.
 * The drill restores as an owner role of its own: the marker is never created, the function ran as
 * that role, the roles are NOLOGIN placeholders it reports, and the event trigger is named as not
 * restored (a failure only with --strict). Skips without a PostgreSQL server, except under CI.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e, type DrillRun } from '../support/drill-e2e.js';
import { dumpOf, EVENT_TRIGGER_SQL, PLANTED_SQL, SUPABASE_SQL } from '../support/hostile-archive.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { writeSandboxDataWithArtifacts } from '../support/sandbox-data.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-least-privilege.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('a drill restores as an unprivileged owner role', { timeout: 180_000 }, () => {
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-privilege-'));
  // Where the planted function would write as the server's OS user: open to it, so only the role decides.
  const markerDir = join(data, 'marker');
  const marker = join(markerDir, 'planted-ran-as-superuser');
  const h = new DrillE2e();
  let first: DrillRun;
  let planted: DrillRun;
  let checks: string;

  beforeAll(async () => {
    chmodSync(data, 0o755);
    mkdirSync(markerDir, { mode: 0o777 });
    chmodSync(markerDir, 0o777);
    const source = await workerCluster();
    const archives = { 'acme-orders': join(data, 'supabase.pgdump'), billing: join(data, 'planted.pgdump') };
    try {
      await dumpOf(source, 'supabase', `${SUPABASE_SQL}\n${EVENT_TRIGGER_SQL}`, archives['acme-orders']);
      await dumpOf(source, 'planted', PLANTED_SQL(marker), archives.billing);
    } finally {
      await source.stop();
    }
    // The seed wrote its rows as app_owner, an ordinary role: the function did not touch the marker then.
    expect(existsSync(marker)).toBe(false);
    await writeSandboxDataWithArtifacts(join(data, 'sandbox'), archives);
    await h.start({ dataDir: join(data, 'sandbox') });
    checks = join(h.root, 'privilege.sql');
    writeFileSync(
      checks,
      [
        '-- check: planted_ran_as_owner',
        "SELECT 'the planted function never ran as the owner role' AS problem WHERE NOT EXISTS (SELECT 1 FROM public.planted_log WHERE who LIKE 'svc\\_drill\\_owner\\_%')",
        '-- check: planted_ran_as_no_one_else',
        "SELECT who FROM public.planted_log WHERE who NOT LIKE 'svc\\_drill\\_owner\\_%'",
        '',
      ].join('\n'),
    );
    const policies = join(h.root, 'policies.sql');
    writeFileSync(policies, "-- check: policies_restored\nSELECT count(*) FROM pg_policies WHERE tablename = 'profiles' HAVING count(*) <> 2\n");
    planted = await h.drill(['db_billing', '--json', '--check', checks]);
    first = await h.drill(['db_orders', '--json', '--check', policies]);
  }, 300_000);
  afterAll(async () => {
    await h.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it('the planted function never runs as a superuser: no marker, and it ran as the svc_drill_owner_* role', () => {
    expect(existsSync(marker), 'the planted COPY ... TO PROGRAM ran on the runner').toBe(false);
    expect(planted.code, planted.stderr).toBe(0);
    const db = planted.doc!.databases[0]!;
    expect(db.result).toBe('passed');
    expect(db.checks.filter((c) => c.name.startsWith('check:')).map((c) => [c.name, c.status, c.detail])).toEqual([
      ['check:planted_ran_as_owner', 'passed', undefined],
      ['check:planted_ran_as_no_one_else', 'passed', undefined],
    ]);
    expect(db.placeholderRoles).toEqual([]);
    expect(db.notRestored).toEqual([]);
  });

  it('policies TO authenticated, anon and "b c" restore through NOLOGIN placeholder roles, reported and said on stderr', () => {
    expect(first.code, first.stderr).toBe(0);
    const db = first.doc!.databases[0]!;
    expect(db.checks.find((c) => c.name === 'check:policies_restored')?.status).toBe('passed');
    expect([...db.placeholderRoles!].sort()).toEqual(['anon', 'authenticated', 'b c']);
    expect(db.receipt!.placeholderRoles).toEqual(db.placeholderRoles);
    expect(first.stderr).toMatch(
      /^db_orders: created NOLOGIN placeholder roles (authenticated|anon|b c)(, (authenticated|anon|b c)){2}, named by the archive's policies and functions$/m,
    );
    expect(db.checks.find((c) => c.name === 'data_present')?.status).toBe('passed');
  });

  it("the event trigger is named as not restored with the server's reason (and its comment, which needs it), in the result, the receipt and on stderr; the drill passes", () => {
    const db = first.doc!.databases[0]!;
    const expected = [
      { type: 'EVENT TRIGGER', name: 'audit_ddl', reason: 'permission denied to create event trigger "audit_ddl"' },
      { type: 'COMMENT', name: 'EVENT TRIGGER audit_ddl', reason: 'event trigger "audit_ddl" does not exist: event trigger audit_ddl was not restored' },
    ];
    expect(db.notRestored).toEqual(expected);
    expect(db.receipt!.notRestored).toEqual(expected);
    expect(first.stderr).toMatch(/^db_orders: not restored: event trigger audit_ddl: permission denied to create event trigger "audit_ddl"$/m);
    expect(db.checks.find((c) => c.name === 'restore_clean')).toMatchObject({
      status: 'passed',
      detail: expect.stringContaining('left out: event trigger audit_ddl, comment EVENT TRIGGER audit_ddl'),
    });
  });

  it('with --strict the same archive fails restore_clean, naming the event trigger', async () => {
    const r = await h.drill(['db_orders', '--json', '--strict']);
    expect(r.code, r.stderr).toBe(13);
    const db = r.doc!.databases[0]!;
    expect(db.failure).toMatchObject({ check: 'restore_clean', code: 'not_restored' });
    expect(db.failure!.message).toContain('event trigger audit_ddl (permission denied to create event trigger "audit_ddl")');
    expect(db.checks.find((c) => c.name === 'restore_clean')?.status).toBe('failed');
    expect(existsSync(marker)).toBe(false);
  });
});

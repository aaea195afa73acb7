/**
 * The scratch cluster's major against the archive's (cli-contract 9, step 2): db_orders' backup is a
 * dump of a PostgreSQL 15.18 server. `--pg-bindir` names the registry's server binaries of another
 * major (tools/pg-majors.mjs, fetched on first use): an older one (14) fails that database at
 * restore_clean naming both versions, with nothing restored; a newer one (16, 17, 18) restores it
 * with the machine's pg_restore 15 and passes. Skips without a PostgreSQL server, except under CI.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgServerBinDir } from '../../tools/pg-majors.mjs';
import { DrillE2e } from '../support/drill-e2e.js';
import { findPgBinDir, pgSkipReason } from '../support/pg-cluster.js';
import { readCustomArchive } from '../support/archive-versions.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-server-majors.test.ts skipped: ${skip}`);

/** "postgres (PostgreSQL) 16.14" -> "16.14" */
const serverVersionOf = (binDir: string) => /\(PostgreSQL\) (\d+\.\d+)/.exec(execFileSync(join(binDir, 'postgres'), ['--version'], { encoding: 'utf8' }))![1]!;

describe.skipIf(!!skip)('svc restore drill --pg-bindir <another major>', () => {
  const h = new DrillE2e();
  let source = '';
  beforeAll(async () => {
    await h.start();
    source = readCustomArchive(readFileSync(join(h.sb.dataDir, 'artifacts', 'acme-orders.pgdump'))).serverVersion!;
  }, 300_000);
  afterAll(() => h.stop());

  it("the archive of db_orders' backup was dumped from PostgreSQL 15", () => {
    expect(source).toMatch(/^15\.\d+/);
  });

  it('an older server (14) fails the database at restore_clean naming both versions: exit 13, nothing restored', async () => {
    const bindir = pgServerBinDir(14);
    const older = serverVersionOf(bindir);
    const restores = h.restoresCreated();
    const r = await h.drill(['db_orders', '--pg-bindir', bindir, '--json']);
    expect(r.code).toBe(13);
    expect(r.stderr).toContain(`Scratch server: PostgreSQL ${older} from ${bindir} (--pg-bindir).`);
    expect(r.doc!.serverVersion).toBe(older);
    const db = r.doc!.databases[0]!;
    expect(db.checks.map((c) => [c.name, c.status])).toEqual([
      ['backup_selected', 'passed'],
      ['artifact_verified', 'passed'],
      ['restore_clean', 'failed'],
      ['objects_present', 'skipped'],
      ['data_present', 'skipped'],
      ['rows_match', 'skipped'],
    ]);
    expect(db).toMatchObject({ result: 'failed', exitCode: 11, failure: { check: 'restore_clean' } });
    const message = db.failure!.message;
    expect(message).toContain(`dumped from PostgreSQL ${source}`);
    expect(message).toContain(`(PostgreSQL ${older}`);
    expect(message).toContain('(14 < 15)');
    expect(message).toContain('Nothing was restored.');
    expect(db.receipt).toMatchObject({ outcome: 'failed', failure: { phase: expect.any(String), exitCode: 11 } });
    // The backup was fetched and verified (a restore job was created), then refused before pg_restore ran.
    expect(h.restoresCreated()).toBe(restores + 1);
    expect(db.receipt!.artifact.verified).toBe(true);
  }, 180_000);

  it.each([16, 17, 18])(
    "a newer server (%i) restores it with the machine's pg_restore and passes",
    async (major) => {
      const bindir = pgServerBinDir(major);
      const r = await h.drill(['db_orders', '--pg-bindir', bindir, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.doc!.serverVersion).toBe(serverVersionOf(bindir));
      const db = r.doc!.databases[0]!;
      expect(db.result).toBe('passed');
      expect(db.receipt!.targetServerVersion).toMatch(new RegExp(`^${major}\\.`));
      const pgRestore = execFileSync(join(findPgBinDir()!, 'pg_restore'), ['--version'], { encoding: 'utf8' }).trim();
      expect(db.receipt!.pgRestoreVersion).toBe(pgRestore);
      expect(db.receipt!.tableRowEstimates).toEqual({ 'public.customers': 1000, 'public.orders': 5000 });
    },
    180_000,
  );
});

/**
 * A drill against the PostgreSQL server major under test (cli-contract 8 and 9): .ci/run runs this
 * file once per major from 14 to 18 with SVC_TEST_PG_BINDIR naming that major's server binaries
 * (tools/pg-majors.mjs), which the drill gets as --pg-bindir (and, in the second case, as
 * SVC_PG_BINDIR); without it, the machine's server, found by svc itself. db_orders' backups serve
 * a dump of the seed database made from a server of that same major with the machine's pg_dump
 * (where pg_dump can dump it; for a newer server, the committed PostgreSQL 15 archive), so the
 * drill passes on every major, 14 included. Skips without a PostgreSQL server, except under CI.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCustomArchive } from '../support/archive-versions.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { findPgBinDir, pgSkipReason, startCluster } from '../support/pg-cluster.js';
import { SEED_FIXTURE, SERVER_BINDIR_ENV, toolMajor } from '../support/restore-harness.js';
import { writeSandboxDataWithArtifact } from '../support/sandbox-data.js';
import { dumpDatabase, seedDatabase } from '../support/seed.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-major.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)(`svc restore drill on the server ${SERVER_BINDIR_ENV} names (the machine's when unset)`, () => {
  const given = process.env[SERVER_BINDIR_ENV] || undefined;
  const serverBinDir = given ?? findPgBinDir()!;
  const version = /\(PostgreSQL\) (\d+\.\d+)/.exec(execFileSync(join(serverBinDir, 'postgres'), ['--version'], { encoding: 'utf8' }))![1]!;
  const major = Number(version.split('.')[0]);
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-major-'));
  const h = new DrillE2e();
  let origin: 'server under test' | 'committed fixture' = 'server under test';

  beforeAll(async () => {
    const archive = join(data, 'acme-orders.pgdump');
    if (major <= (await toolMajor(join(findPgBinDir()!, 'pg_dump')))) {
      const cluster = await startCluster({ serverBinDir });
      try {
        await seedDatabase(cluster, 'acme_orders');
        await dumpDatabase(cluster, 'acme_orders', archive);
      } finally {
        await cluster.stop();
      }
    } else {
      origin = 'committed fixture';
      copyFileSync(SEED_FIXTURE, archive);
    }
    await writeSandboxDataWithArtifact(join(data, 'sandbox'), 'acme-orders', archive);
    await h.start({ dataDir: join(data, 'sandbox') });
  }, 180_000);
  afterAll(async () => {
    await h.stop();
    rmSync(data, { recursive: true, force: true });
  });

  /** The drill passed on this major's server, restoring every table of the seed. */
  function expectPassed(r: Awaited<ReturnType<DrillE2e['drill']>>): void {
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc!.serverVersion).toBe(version);
    const db = r.doc!.databases[0]!;
    expect(db.result).toBe('passed');
    expect(db.checks.map((c) => [c.name, c.status])).toEqual([
      ['backup_selected', 'passed'],
      ['artifact_verified', 'passed'],
      ['restore_clean', 'passed'],
      ['objects_present', 'passed'],
      ['data_present', 'passed'],
      ['rows_match', 'passed'],
      ['check:seed_counts', 'passed'],
    ]);
    expect(db.receipt!.targetServerVersion).toMatch(new RegExp(`^${version.replace('.', '\\.')}\\b`));
    expect(db.receipt!.tableRowEstimates).toEqual({ 'public.customers': 1000, 'public.orders': 5000 });
    expect(db.receipt!.backupSelection).toMatchObject({ rule: 'latest', backupJobId: 'bj_0007' });
  }

  const counts = () => {
    const file = join(h.workDir(), 'counts.sql');
    writeFileSync(
      file,
      '-- check: seed_counts\nSELECT (SELECT count(*) FROM customers) AS customers, (SELECT count(*) FROM orders) AS orders\nWHERE (SELECT count(*) FROM customers) <> 1000 OR (SELECT count(*) FROM orders) <> 5000\n',
    );
    return file;
  };

  it("db_orders' backup serves a dump made from a server of this major (or, for a server newer than pg_dump, the committed 15 archive)", () => {
    const source = readCustomArchive(readFileSync(join(data, 'sandbox', 'artifacts', 'acme-orders.pgdump'))).serverVersion!;
    expect(Number(source.split('.')[0])).toBe(origin === 'server under test' ? major : 15);
  });

  it(`--pg-bindir ${given ? '<that major>' : "(not given: svc finds the machine's server)"}: db_orders restores and passes every check`, async () => {
    const r = await h.drill(['db_orders', '--check', counts(), '--json', ...(given ? ['--pg-bindir', given] : [])]);
    expectPassed(r);
    const source = /^Scratch server: PostgreSQL (\S+) from (\S+) \((.+)\)\.$/m.exec(r.stderr);
    expect(source?.slice(1, 3)).toEqual([version, serverBinDir]);
    if (given) expect(source![3]).toBe('--pg-bindir');
    else expect(['pg_config --bindir', 'the install directories']).toContain(source![3]);
  }, 120_000);

  it('SVC_PG_BINDIR names the same server binaries', async () => {
    const r = await h.drill(['db_orders', '--check', counts(), '--json'], { env: { SVC_PG_BINDIR: serverBinDir } });
    expectPassed(r);
    expect(r.stderr).toContain(`Scratch server: PostgreSQL ${version} from ${serverBinDir} (SVC_PG_BINDIR).`);
  }, 120_000);
});

/**
 * Extension configuration tables in a least-privilege drill (cli-contract 9.9): pg_dump writes the
 * rows of tables an extension marks with pg_extension_config_dump (PostGIS's spatial_ref_sys and
 * topology's topology and layer) as TABLE DATA entries with no TABLE entry, so the scratch
 * superuser creates the extensions and grants the owner role what it needs on those tables; the rows
 * then restore as the owner. Skips without a PostgreSQL server, or where PostGIS is not installed
 * (except under CI, where both are).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrillE2e } from '../support/drill-e2e.js';
import { dumpOf } from '../support/hostile-archive.js';
import { findPgBinDir, pgSkipReason } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { writeSandboxDataWithArtifacts } from '../support/sandbox-data.js';

const postgis = (() => {
  const bin = findPgBinDir();
  const share = bin && join(bin, '..', '..', '..', '..', 'share', 'postgresql', bin.split('/').at(-2)!, 'extension');
  return share !== undefined && existsSync(join(share, 'postgis_topology.control'));
})();
const skip = pgSkipReason() ?? (postgis || process.env.CI === 'true' ? undefined : 'PostGIS is not installed');
if (skip) console.warn(`test/drill/drill-extension-config.test.ts skipped: ${skip}`);

const SOURCE_SQL = `
CREATE EXTENSION postgis;
CREATE EXTENSION postgis_topology;
INSERT INTO public.spatial_ref_sys (srid, auth_name, auth_srid, srtext, proj4text) VALUES (990001, 'svc', 990001, 'LOCAL_CS["svc test"]', '');
SELECT topology.CreateTopology('city_topo', 4326);
CREATE TABLE public.places (id integer PRIMARY KEY, geom geometry(Point, 4326));
INSERT INTO public.places VALUES (1, 'SRID=4326;POINT(13.4 52.5)');
`;

describe.skipIf(!!skip)('a drill of a PostGIS database restores its extension configuration rows as the owner role', { timeout: 240_000 }, () => {
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-extconfig-'));
  const h = new DrillE2e();

  beforeAll(async () => {
    const source = await workerCluster();
    const archive = join(data, 'postgis.pgdump');
    try {
      await dumpOf(source, 'gis', SOURCE_SQL, archive);
    } finally {
      await source.stop();
    }
    await writeSandboxDataWithArtifacts(join(data, 'sandbox'), { 'acme-orders': archive });
    await h.start({ dataDir: join(data, 'sandbox') });
  }, 300_000);
  afterAll(async () => {
    await h.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it('spatial_ref_sys and topology.topology rows are restored, the drill passes with nothing left out', async () => {
    const checks = join(h.root, 'extconfig.sql');
    writeFileSync(
      checks,
      [
        '-- check: custom_srid',
        "SELECT 'missing' WHERE NOT EXISTS (SELECT 1 FROM public.spatial_ref_sys WHERE srid = 990001 AND auth_name = 'svc')",
        '-- check: topology_row',
        "SELECT 'missing' WHERE NOT EXISTS (SELECT 1 FROM topology.topology WHERE name = 'city_topo')",
        '',
      ].join('\n'),
    );
    // One job: the parallel race between topology's two tables is another matter (cli-contract 7.13).
    const r = await h.drill(['db_orders', '--json', '--jobs', '1', '--check', checks]);
    expect(r.code, r.stderr).toBe(0);
    const db = r.doc!.databases[0]!;
    expect(db.checks.map((c) => [c.name, c.status])).toEqual([
      ['backup_selected', 'passed'],
      ['artifact_verified', 'passed'],
      ['restore_clean', 'passed'],
      ['objects_present', 'passed'],
      ['data_present', 'passed'],
      ['rows_match', 'passed'],
      ['check:custom_srid', 'passed'],
      ['check:topology_row', 'passed'],
    ]);
    expect(db.notRestored).toEqual([]);
  });
});

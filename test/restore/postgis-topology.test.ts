/**
 * PostGIS topology's extension configuration tables (topology.topology and topology.layer, with a
 * foreign key between them) against the default --jobs (cli-contract 7.13, issue 23 item 5):
 * parallel pg_restore loads both at once and races the foreign key, so svc restores extension
 * configuration data first, one table at a time in the archive's order, then the rest with --jobs.
 * A real PostGIS database, fuller than a toy one (many topologies, layers and features, and other
 * tables for the parallel workers), dumped with pg_dump -Fc and restored ten times in a row.
 * Needs postgresql-15-postgis-3 (.ci/run installs it); skips without a PostgreSQL server, except under CI.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultJobs } from '../../src/restore/plan.js';
import { dumpAs, serveDump, useDump, type ServedDump } from '../support/archive-sources.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, RestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/postgis-topology.test.ts skipped: ${skip}`);

const TOPOLOGIES = 40;
const RUNS = 10;

describe.skipIf(!!skip)('a PostGIS topology database restored with the default --jobs', () => {
  const h = new RestoreHarness();
  let dump: ServedDump;

  beforeAll(async () => {
    await h.start();
    await h.cluster.psql('CREATE DATABASE gis');
    const topologies = Array.from({ length: TOPOLOGIES }, (_, i) => i + 1);
    await h.cluster.psql(
      `CREATE EXTENSION postgis; CREATE EXTENSION postgis_topology;
       ${topologies
         .map(
           (i) => `SELECT topology.CreateTopology('city_${i}', 4326, 0.00001);
             CREATE TABLE public.parcels_${i} (id serial PRIMARY KEY, name text);
             SELECT topology.AddTopoGeometryColumn('city_${i}', 'public', 'parcels_${i}', 'topo', 'POLYGON');
             SELECT topology.AddTopoGeometryColumn('city_${i}', 'public', 'parcels_${i}', 'roads', 'LINE');`,
         )
         .join('\n')}
       SELECT topology.TopoGeo_AddPolygon('city_1', ST_GeomFromText('POLYGON((0 0, 0 1, 1 1, 1 0, 0 0))', 4326));
       SELECT topology.TopoGeo_AddLineString('city_1', ST_GeomFromText('LINESTRING(0 0, 2 2, 3 0)', 4326));
       INSERT INTO public.parcels_1 (name) SELECT 'parcel ' || g FROM generate_series(1, 500) g;
       CREATE TABLE public.points (id int PRIMARY KEY, geom geometry(Point, 4326));
       INSERT INTO public.points SELECT g, ST_SetSRID(ST_MakePoint(g % 180, g % 90), 4326) FROM generate_series(1, 20000) g;`,
      'gis',
    );
    const path = join(h.scratch, 'gis.pgdump');
    await dumpAs(h.cluster, 'gis', path, 'custom');
    dump = await serveDump(h, path);
  }, 600_000);
  afterAll(() => h.stop());
  beforeEach(async () => {
    await h.reset();
    useDump(h, dump);
  });
  afterEach(() => h.expectNoSecretsLeft());

  it('the archive holds the two configuration tables as data without a TABLE entry, and the default --jobs is parallel here', async () => {
    expect(defaultJobs()).toBeGreaterThan(1);
    expect(await h.cluster.psql("SELECT (SELECT count(*) FROM topology.topology) || '|' || (SELECT count(*) FROM topology.layer)", 'gis')).toBe(
      `${TOPOLOGIES}|${TOPOLOGIES * 2}`,
    );
  });

  it(`restores ${RUNS} times in a row: configuration data first and serially, then the rest with --jobs`, async () => {
    for (let run = 1; run <= RUNS; run++) {
      const database = `gis_${run}`;
      await h.reset();
      useDump(h, dump);
      const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir(), '--no-analyze'], {
        env: { SVC_TARGET_DSN: h.dsn(database, true) },
      });
      expect(r.code, `run ${run}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain('Extension configuration data is restored first, one table at a time, before the parallel data phase.');
      const passes = (await h.pgRestoreRuns()).map((p) => p.argv);
      expect(passes).toHaveLength(3);
      expect(passes[0]).toContain('--section=pre-data');
      expect(passes[1]).not.toContain('--jobs');
      expect(passes[1]).not.toContain('--section');
      expect(passes[2]).toContain(`--jobs=${defaultJobs()}`);
      expect(passes[2]).toContain('--section=data --section=post-data');
      expect(
        await h.cluster.psql(
          `SELECT (SELECT count(*) FROM topology.topology) || '|' || (SELECT count(*) FROM topology.layer) || '|' || (SELECT count(*) FROM city_1.edge_data) || '|' || (SELECT count(*) FROM points)`,
          database,
        ),
      ).toBe(`${TOPOLOGIES}|${TOPOLOGIES * 2}|${await h.cluster.psql('SELECT count(*) FROM city_1.edge_data', 'gis')}|20000`);
      // The restored topology works: its layers resolve through the foreign key.
      expect(
        await h.cluster.psql("SELECT count(*) FROM topology.layer l JOIN topology.topology t ON t.id = l.topology_id WHERE t.name = 'city_7'", database),
      ).toBe('2');
      await h.dropDatabase(database);
    }
  }, 900_000);
});

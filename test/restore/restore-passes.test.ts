import { describe, expect, it } from 'vitest';
import { effectiveJobs, extensionConfigData, passArgs, restorePasses } from '../../src/restore/load/restore-passes.js';
import { RestoreProgress } from '../../src/restore/load/restore-progress.js';
import { parseTocListing } from '../../src/restore/archive/toc.js';

/** `pg_restore -l` of a PostGIS topology database, shortened: the two configuration tables have data but no TABLE entry. */
const toc = parseTocListing(
  [
    ';',
    '; Archive created at 2026-11-26 04:50:00 UTC',
    ';',
    '2; 3079 17001 EXTENSION - postgis ',
    '3; 3079 18002 EXTENSION - postgis_topology ',
    '230; 1259 19001 TABLE public parcels postgres',
    '231; 1259 19002 SEQUENCE public parcels_id_seq postgres',
    '4390; 0 18100 TABLE DATA topology topology postgres',
    '4391; 0 18120 TABLE DATA topology layer postgres',
    '4392; 0 19001 TABLE DATA public parcels postgres',
    '4400; 0 0 SEQUENCE SET public parcels_id_seq postgres',
    '4200; 2606 19010 CONSTRAINT public parcels parcels_pkey postgres',
  ].join('\n'),
);

describe('restore passes', () => {
  it('finds the data of tables the archive does not create: extension configuration tables, in archive order', () => {
    expect(extensionConfigData(toc).map((e) => e.dumpId)).toEqual([4390, 4391]);
  });

  it('a parallel restore: pre-data, the configuration data serially, then the rest with --jobs', () => {
    const passes = restorePasses(toc, 4);
    const all = toc.entries.map((e) => e.dumpId);
    expect(passes).toEqual([
      { ids: undefined, sections: ['pre-data'], jobs: 1 },
      { ids: [4390, 4391], jobs: 1 },
      { ids: all.filter((id) => id !== 4390 && id !== 4391), sections: ['data', 'post-data'], jobs: 4 },
    ]);
    expect(passArgs(passes[2]!, false, 'copy', '/a.dump', '/l/pass-3.list', true)).toEqual([
      '--verbose',
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '--jobs=4',
      '--use-list=/l/pass-3.list',
      '--section=data',
      '--section=post-data',
      '--no-tablespaces',
      "--dbname=dbname='copy'",
      '/a.dump',
    ]);
  });

  it('one pass where a serial restore already follows the archive order: one job, no configuration data', () => {
    expect(restorePasses(toc, 1)).toEqual([{ ids: undefined, jobs: 1 }]);
    const plain = parseTocListing('230; 1259 19001 TABLE public t postgres\n4392; 0 19001 TABLE DATA public t postgres\n');
    expect(restorePasses(plain, 4)).toEqual([{ ids: undefined, jobs: 4 }]);
  });

  it('a tar archive restores with one job', () => {
    expect(effectiveJobs({ jobs: 4 }, { format: 'tar' })).toBe(1);
    expect(effectiveJobs({ jobs: 4 }, { format: 'custom' })).toBe(4);
  });

  it('progress counts on across a serial pass and a parallel one', () => {
    const progress = new RestoreProgress(toc);
    expect(progress.total).toBe(9);
    for (const line of [
      'pg_restore: creating EXTENSION "postgis"',
      'pg_restore: creating EXTENSION "postgis_topology"',
      'pg_restore: creating TABLE "public.parcels"',
      'pg_restore: creating SEQUENCE "public.parcels_id_seq"',
    ])
      progress.line(line);
    for (const line of ['pg_restore: processing data for table "topology.topology"', 'pg_restore: processing data for table "topology.layer"'])
      progress.line(line);
    expect(progress.done).toBe(6);
    expect(progress.line('pg_restore: finished item 4392 TABLE DATA parcels')).toBe(true);
    expect(progress.done).toBe(7);
    progress.line('pg_restore: finished item 4400 SEQUENCE SET parcels_id_seq');
    progress.line('pg_restore: finished item 4200 CONSTRAINT parcels parcels_pkey');
    expect(progress.done).toBe(9);
  });
});

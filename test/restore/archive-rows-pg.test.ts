/**
 * The archive's row counts against real pg_dump archives, and rows_match's count of the restored
 * tables (cli-contract 9.11): custom and tar formats, a partitioned table dumped per partition and
 * through its root (--load-via-partition-root), a name with a quote and a newline, and an --inserts
 * dump, whose tables are reported as not counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSession } from '../../src/drill/data-session.js';
import { rowsMatch } from '../../src/drill/rows-match.js';
import { countArchiveRows, tableKey } from '../../src/restore/archive/archive-rows.js';
import { UTF8_ARCHIVE } from '../../src/restore/archive/archive-encoding.js';
import { readToc } from '../../src/restore/archive/toc.js';
import { SecretScrubber } from '../../src/secrets.js';
import { clientEnv, pgSkipReason, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { seedDatabase } from '../support/seed.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/archive-rows-pg.test.ts skipped: ${skip}`);

const ODD = '"we""ird\nname"';
const EXTRA = `
CREATE TABLE ${ODD} (id int);
INSERT INTO ${ODD} SELECT generate_series(1, 7);
CREATE TABLE p (k int) PARTITION BY RANGE (k);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10);
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (10) TO (20);
INSERT INTO p SELECT generate_series(0, 19);
CREATE TABLE parent (id int);
CREATE TABLE child () INHERITS (parent);
INSERT INTO parent VALUES (1), (2);
INSERT INTO child VALUES (3);`;

describe.skipIf(!!skip)("the archive's rows, counted beside pg_restore, and the restored tables' counts", { timeout: 120_000 }, () => {
  let c: PgCluster;
  const dir = mkdtempSync(join(tmpdir(), 'svc-archive-rows-'));
  const scrubber = new SecretScrubber();
  const signal = new AbortController().signal;
  const env = () => ({ PATH: process.env.PATH });

  beforeAll(async () => {
    c = await workerCluster();
    await seedDatabase(c, 'src');
    await c.psql(EXTRA, 'src');
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function dump(name: string, args: string[]): Promise<string> {
    const file = join(dir, name);
    await execa(join(c.binDir, 'pg_dump'), [...args, '-d', 'src', '-f', file], { env: clientEnv(c), extendEnv: false });
    return file;
  }
  async function count(file: string) {
    const pgRestore = join(c.binDir, 'pg_restore');
    const toc = await readToc(file, pgRestore, env(), scrubber, signal, UTF8_ARCHIVE);
    return countArchiveRows(pgRestore, file, toc, dir, env(), scrubber, signal).counts();
  }

  const leaves = new Map([
    [tableKey('public', 'customers'), 1000],
    [tableKey('public', 'orders'), 5000],
    [tableKey('public', 'we"ird\nname'), 7],
    [tableKey('public', 'p1'), 10],
    [tableKey('public', 'p2'), 10],
    [tableKey('public', 'parent'), 2],
    [tableKey('public', 'child'), 1],
  ]);

  it("custom and tar archives: each table's rows, an inheritance parent's own apart from its child's", async () => {
    expect(await count(await dump('c.dump', ['-Fc']))).toEqual({ tables: leaves, uncounted: 0 });
    expect(await count(await dump('t.tar', ['-Ft']))).toEqual({ tables: leaves, uncounted: 0 });
  });

  it("--load-via-partition-root: the partitions' rows counted for the root; the restore matches, root counted with its partitions", async () => {
    const file = await dump('root.dump', ['-Fc', '--load-via-partition-root']);
    const counted = await count(file);
    const expected = new Map([...leaves].filter(([k]) => !k.endsWith('\u0000p1') && !k.endsWith('\u0000p2')));
    expected.set(tableKey('public', 'p'), 20);
    expect(counted).toEqual({ tables: expected, uncounted: 0 });

    await c.psql('CREATE DATABASE dst TEMPLATE template0');
    await execa(join(c.binDir, 'pg_restore'), ['--no-owner', '--exit-on-error', '-d', 'dst', file], { env: clientEnv(c), extendEnv: false });
    const session = new DataSession(
      { host: c.host, port: c.port, user: c.user, password: c.password, database: 'dst', ssl: false, plainFallback: false, bounds: null },
      scrubber,
      signal,
    );
    const match = await rowsMatch(counted, session);
    expect(match).toMatchObject({ passed: true, receipt: { tables: 6, archiveRows: 6030, restoredRows: 6030, mismatches: [] } });

    // A row more in a table, one fewer in another: both named, with both counts.
    await c.psql(`INSERT INTO public.child VALUES (4); DELETE FROM ${ODD} WHERE id = 1;`, 'dst');
    const differ = await rowsMatch(counted, session);
    await session.close();
    expect(differ.passed).toBe(false);
    expect(differ.receipt!.mismatches).toHaveLength(2);
    expect(differ.receipt!.mismatches).toEqual(
      expect.arrayContaining([
        { table: 'public.we"ird\nname', archive: 7, restored: 6 },
        { table: 'public.child', archive: 1, restored: 2 },
      ]),
    );
    expect(differ.message).toContain('public.child: 1 in the archive, 2 restored');
  });

  it('--inserts: no COPY block, so its tables are reported as not counted rather than as empty', async () => {
    expect(await count(await dump('inserts.dump', ['-Fc', '--inserts']))).toEqual({ tables: new Map(), uncounted: 7 });
  });
});

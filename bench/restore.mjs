/**
 * Row 6: `svc restore create` end to end (preflight, createRestore, download + SHA-256, CREATE
 * DATABASE, pg_restore) into a local PostgreSQL, against the same steps as a shell pipeline:
 *   curl POST /restores | sed (the presigned URL);  curl URL | tee FILE | sha256sum (and compare);
 *   psql CREATE DATABASE ... TEMPLATE template0;  pg_restore with svc's own flags and --jobs.
 * Fixtures, all removed at the end: a throwaway cluster (test/support/pg-cluster.ts startCluster),
 * the seed database plus generated bulk tables, pg_dump -Fc of it (test/support/seed.ts), and
 * `svc sandbox --data` serving that dump as the artifact of every completed backup.
 */
import { availableParallelism } from 'node:os';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgRestoreArgs } from '../src/restore/pg-restore.ts';
import { startCluster } from '../test/support/pg-cluster.ts';
import { artifactInfo, dumpDatabase, seedDatabase } from '../test/support/seed.ts';
import { fmtMiB, fmtMs, median, MiB, NODE, onCleanup, requireTools, ROOT, rounds, startHelper, SVC, tempDir, timed } from './lib/common.mjs';
import { timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

const BACKUP_ID = 'bj_0007';
const SOURCE_DB = 'bench_source';
/** Dump bytes per generated row (pg_dump -Fc, default compression), measured on PostgreSQL 15. */
const BYTES_PER_ROW = 83;

/**
 * Rows of md5 hex text in four tables: pg_dump -Fc compresses them about 2:1, like real text data,
 * and pg_restore --jobs has tables to spread. rowsPerTable is tuned for the dump size asked for.
 */
function bulkSql(rowsPerTable) {
  const tables = [0, 1, 2, 3].map(
    (t) => `CREATE TABLE bench_events_${t} (id bigint PRIMARY KEY, at timestamptz NOT NULL, kind text NOT NULL, payload text NOT NULL);
INSERT INTO bench_events_${t}
  SELECT g, timestamptz '2026-01-01' + g * interval '1 second', (ARRAY['order','refund','invoice'])[g % 3 + 1],
         md5(g::text || '${t}a') || md5(g::text || '${t}b') || md5(g::text || '${t}c') || md5(g::text || '${t}d')
  FROM generate_series(1, ${rowsPerTable}) g;`,
  );
  return tables.join('\n');
}

export async function run({ quick, log }) {
  requireTools(['curl', 'sha256sum', 'tee', 'sed', 'psql', 'pg_restore']);
  const targetMiB = quick ? 50 : 200;
  const dir = tempDir();

  log('restore: starting a throwaway PostgreSQL cluster');
  const cluster = await startCluster();
  onCleanup(() => cluster.stop());
  await seedDatabase(cluster, SOURCE_DB);
  const rowsPerTable = Math.round((targetMiB * MiB) / 4 / BYTES_PER_ROW);
  log(`restore: generating ${4 * rowsPerTable} rows for a ~${targetMiB} MB dump`);
  await cluster.psql(bulkSql(rowsPerTable), SOURCE_DB);
  const dump = join(dir, 'data', 'artifacts', 'bench.pgdump');
  mkdirSync(join(dir, 'data'));
  cpSync(join(ROOT, 'fixtures'), join(dir, 'data'), { recursive: true });
  log('restore: pg_dump -Fc');
  await dumpDatabase(cluster, SOURCE_DB, dump);
  const info = await artifactInfo(dump);
  log(`restore: dump is ${fmtMiB(info.sizeBytes)}`);
  // The sandbox serves whatever fixtures/sandbox/settings.json names as the artifact of every completed backup.
  rmSync(join(dir, 'data', 'artifacts', 'acme-orders.pgdump'));
  cpSync(dump, join(dir, 'data', 'artifacts', 'acme-orders.pgdump'));
  rmSync(dump);
  writeFileSync(join(dir, 'data', 'artifacts', 'acme-orders.json'), `${JSON.stringify(info, null, 2)}\n`);

  const home = tempDir();
  const { info: sandbox } = await startHelper(NODE, [SVC, 'sandbox', '--port', '0', '--data', join(dir, 'data'), '--json', '--quiet'], {
    label: 'svc sandbox',
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home },
  });
  const token = sandbox.tokens.find((t) => t.name === 'full').token;
  const jobs = Math.min(availableParallelism(), 4); // svc's default --jobs
  const work = join(dir, 'work');
  mkdirSync(work);
  const pgEnv = { PGHOST: cluster.host, PGPORT: String(cluster.port), PGUSER: cluster.user, PGPASSWORD: cluster.password, PGDATABASE: 'postgres' };
  const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG')));

  let serial = 0;
  const created = [];
  const nextDb = (who) => {
    const db = `bench_${who}_${++serial}`;
    created.push(db);
    return db;
  };
  // Synchronous, between timed runs (the timed runs block the event loop anyway).
  const dropAll = () => {
    while (created.length) {
      timed(join(cluster.binDir, 'psql'), ['-X', '-q', '-w', '-v', 'ON_ERROR_STOP=1', '-c', `DROP DATABASE IF EXISTS "${created.pop()}" WITH (FORCE)`], {
        env: { ...baseEnv, ...pgEnv },
      });
    }
  };

  const svcRestore = () => {
    const db = nextDb('svc');
    const r = timed(NODE, [SVC, 'restore', 'create', '--backup', BACKUP_ID, '--work-dir', work, '--json'], {
      env: {
        ...baseEnv,
        HOME: home,
        XDG_CONFIG_HOME: home,
        SVC_BASE_URL: sandbox.baseUrl,
        SVC_API_KEY: token,
        // In the environment, as the docs advise; svc moves the password to a 0600 PGPASSFILE.
        SVC_TARGET_DSN: cluster.dsn(db, true),
      },
    });
    const out = JSON.parse(r.stdout);
    if (out.execution?.sha256 !== info.sha256 || out.execution?.pgRestoreExitCode !== 0) throw new Error(`svc restore create: unexpected result ${r.stdout}`);
    return r.ms;
  };

  const script = `set -eu
body='{"backupJobId":"${BACKUP_ID}","targetRedactedDsn":"postgresql://postgres@127.0.0.1/'"$DB"'","mode":"new_database","confirmDestructive":false}'
url=$(curl -sS --fail -X POST -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
  -H "idempotency-key: bench-$DB" --data "$body" "$BASE/api/v1/restores" | sed -n 's/.*"presignedS3Url": *"\\([^"]*\\)".*/\\1/p')
sum=$(curl -sS --fail "$url" | tee "$FILE" | sha256sum)
test "\${sum%% *}" = "$SHA"
psql -X -q -w -v ON_ERROR_STOP=1 -c "CREATE DATABASE \\"$DB\\" TEMPLATE template0"
pg_restore "$@"
rm -f "$FILE"
`;
  const shellRestore = () => {
    const db = nextDb('sh');
    const file = join(work, 'artifact.dump');
    const args = pgRestoreArgs({ mode: 'new_database', jobs, atomic: false }, db, file);
    return timed('sh', ['-c', script, 'sh', ...args], {
      env: { ...baseEnv, ...pgEnv, DB: db, TOKEN: token, BASE: sandbox.baseUrl, FILE: file, SHA: info.sha256 },
    }).ms;
  };

  const n = quick ? 1 : 3;
  log(`restore: ${n} interleaved rounds of svc restore create and the shell pipeline (--jobs ${jobs})`);
  const t = rounds(n, { shell: shellRestore, svc: svcRestore }, { warmup: 0, between: dropAll });
  return [
    timeRow(
      `restore create, ${fmtMiB(info.sizeBytes)} dump (wall)`,
      median(t.svc),
      median(t.shell),
      1.1,
      fmtMs,
      `baseline curl | tee | sha256sum + psql CREATE DATABASE + pg_restore ${pgRestoreArgs({ mode: 'new_database', jobs, atomic: false }, 'DB', 'FILE').join(' ')}; ${n} runs each`,
    ),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

/**
 * Rows 7 and 8: `svc restore create` end to end (preflight, createRestore, download + SHA-256,
 * CREATE DATABASE, pg_restore, ANALYZE, the object check) into a local PostgreSQL, against the same
 * steps as a shell pipeline:
 *   curl POST /restores | sed (the presigned URL);  curl URL | tee FILE | sha256sum (and compare);
 *   psql CREATE DATABASE ... TEMPLATE template0;  pg_restore with svc's own flags and --jobs.
 * The pipeline does no ANALYZE and no object check: svc does more work than its baseline.
 *  - Row 7, loopback: `svc sandbox --data` (the built CLI) serves the dump as the artifact of every
 *    completed backup. Target: at most 1.1x.
 *  - Row 8, long link: the artifact crosses bench/lib/long-link-proxy.mjs (25 ms each way, 50 MB/s
 *    per connection): bench/lib/link-sandbox.mjs is the same sandbox whose presigned URLs name the
 *    proxy; the API is answered directly, for svc and the pipeline alike. The dump is sized so that
 *    pg_restore alone takes about as long as its one-stream download over the link (the pipeline's
 *    two halves, both printed in the note): svc's parallel download can then save about half of
 *    the pipeline's time, its pg_restore none. Target: at most 0.6x.
 * Both rows restore the same dump; the four variants run in interleaved rounds, every created
 * database dropped between runs; medians. Fixtures, all removed at the end: a throwaway cluster
 * (test/support/pg-cluster.ts startCluster), the seed database plus generated bulk tables,
 * pg_dump -Fc of it (test/support/seed.ts), the sandboxes and the proxy.
 */
import { availableParallelism } from 'node:os';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgRestoreArgs } from '../src/restore/load/pg-restore.ts';
import { startCluster } from '../test/support/pg-cluster.ts';
import { LINK_TEXT, startLongLink } from './download.mjs';
import {
  directEnv,
  fmtMiB,
  fmtMs,
  median,
  NODE,
  onCleanup,
  requireBuilt,
  requireTools,
  ROOT,
  rounds,
  startHelper,
  SVC,
  tempDir,
  timed,
  TSX,
} from './lib/common.mjs';
import { sandboxDataWithDump, seedBulk, TABLES } from './lib/dump-fixture.mjs';
import { timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

const BACKUP_ID = 'bj_0007';
const SOURCE_DB = 'bench_source';
// pg_restore --jobs=2 restores this dump shape (bench/lib/dump-fixture.mjs) at 40-60 MiB/s on the 2-CPU
// bench machine: about what one connection of the long link carries (50 MB/s, 21.6 s for 1 GiB), so
// for the long-link row the restore and the one-stream download take about as long.

const STREAMING_NOTE =
  'Streaming the artifact into pg_restore while it downloads was measured and rejected: it saves only 5-15%, rules out --jobs, ' +
  'and a crafted archive could run SQL before the digest is known; svc always verifies the artifact before pg_restore reads it';

export async function run({ quick, log }) {
  requireBuilt();
  requireTools(['curl', 'sha256sum', 'tee', 'sed', 'date', 'psql', 'pg_restore']);
  const targetMiB = quick ? 150 : 1024;
  const dir = tempDir();

  log('restore: starting a throwaway PostgreSQL cluster');
  const cluster = await startCluster();
  onCleanup(() => cluster.stop());
  const rowsPerTable = await seedBulk(cluster, SOURCE_DB, targetMiB, (m) => log(`restore: ${m}`));
  log('restore: pg_dump -Fc into a copy of fixtures/ (the default artifact, which bj_0007 serves)');
  const { dataDir, info } = await sandboxDataWithDump(cluster, SOURCE_DB, dir);
  log(`restore: dump is ${fmtMiB(info.sizeBytes)}`);

  const home = tempDir();
  const homeEnv = { HOME: home, XDG_CONFIG_HOME: home };
  log('restore: starting svc sandbox (loopback) and the long-link sandbox behind the proxy');
  const { info: sandbox } = await startHelper(NODE, [SVC, 'sandbox', '--port', '0', '--data', dataDir, '--json', '--quiet'], {
    label: 'svc sandbox',
    env: { ...process.env, ...homeEnv },
  });
  const { child: linkChild, info: linkSandbox } = await startHelper(NODE, [...TSX, join(ROOT, 'bench/lib/link-sandbox.mjs'), dataDir], {
    label: 'long-link sandbox',
  });
  const link = await startLongLink(linkSandbox.port);
  await new Promise((resolve) => linkChild.stdin.write(`${JSON.stringify({ artifactBaseUrl: link.base })}\n`, resolve));

  const token = sandbox.tokens.find((t) => t.name === 'full').token;
  const linkToken = linkSandbox.tokens.find((t) => t.name === 'full').token;
  // The long-link sandbox's presigned URLs must name the proxy before anything is timed.
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${linkSandbox.baseUrl}/api/v1/restores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${linkToken}`, 'content-type': 'application/json', 'idempotency-key': `bench-link-check-${attempt}` },
      body: JSON.stringify({
        backupJobId: BACKUP_ID,
        targetRedactedDsn: 'postgresql://postgres@127.0.0.1/bench_link_check',
        mode: 'new_database',
        confirmDestructive: false,
      }),
    });
    const url = (await res.json()).execution?.presignedS3Url ?? '';
    if (url.startsWith(`${link.base}/`)) break;
    if (attempt >= 20) throw new Error(`the long-link sandbox hands out presigned URLs outside the proxy (HTTP ${res.status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const jobs = Math.min(availableParallelism(), 4); // svc's default --jobs
  const work = join(dir, 'work');
  mkdirSync(work);
  const pgEnv = { PGHOST: cluster.host, PGPORT: String(cluster.port), PGUSER: cluster.user, PGPASSWORD: cluster.password, PGDATABASE: 'postgres' };
  const baseEnv = directEnv(Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG'))));

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

  const svcRestore = (who, baseUrl, apiKey, phases) => () => {
    const db = nextDb(who);
    const r = timed(NODE, [SVC, 'restore', 'create', '--backup', BACKUP_ID, '--work-dir', work, '--json'], {
      env: {
        ...baseEnv,
        ...homeEnv,
        SVC_BASE_URL: baseUrl,
        SVC_API_KEY: apiKey,
        // In the environment, as the docs advise; svc moves the password to a 0600 PGPASSFILE.
        SVC_TARGET_DSN: cluster.dsn(db, true),
      },
    });
    const out = JSON.parse(r.stdout);
    if (out.execution?.sha256 !== info.sha256 || out.execution?.pgRestoreExitCode !== 0) throw new Error(`svc restore create: unexpected result ${r.stdout}`);
    const phasesMs = out.execution.receipt.phasesMs;
    // Node start-up, module loading and what runs after the last phase (clean-up, exit).
    const other = r.ms - Object.values(phasesMs).reduce((a, b) => a + b, 0);
    phases.push({ ...phasesMs, other, connections: out.execution.receipt.connections });
    return r.ms;
  };

  // Step times in ms on stderr ("steps api=.. download=.. createdb=.. pg_restore=.."), for the note.
  // With $VIA set, the presigned URL must start with it (the long link's proxy).
  const script = `set -eu
now() { date +%s%N; }
t0=$(now)
body='{"backupJobId":"${BACKUP_ID}","targetRedactedDsn":"postgresql://postgres@127.0.0.1/'"$DB"'","mode":"new_database","confirmDestructive":false}'
url=$(curl -sS --fail -X POST -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
  -H "idempotency-key: bench-$DB" --data "$body" "$BASE/api/v1/restores" | sed -n 's/.*"presignedS3Url": *"\\([^"]*\\)".*/\\1/p')
case "$url" in "$VIA"/*) ;; *) echo "presigned URL not under $VIA" >&2; exit 3;; esac
t1=$(now)
sum=$(curl -sS --fail "$url" | tee "$FILE" | sha256sum)
test "\${sum%% *}" = "$SHA"
t2=$(now)
psql -X -q -w -v ON_ERROR_STOP=1 -c "CREATE DATABASE \\"$DB\\" TEMPLATE template0"
t3=$(now)
pg_restore "$@"
t4=$(now)
rm -f "$FILE"
echo "steps api=$(( (t1 - t0) / 1000000 )) download=$(( (t2 - t1) / 1000000 )) createdb=$(( (t3 - t2) / 1000000 )) pg_restore=$(( (t4 - t3) / 1000000 ))" >&2
`;
  const shellRestore = (who, baseUrl, apiKey, via, steps) => () => {
    const db = nextDb(who);
    const file = join(work, 'artifact.dump');
    const args = pgRestoreArgs({ mode: 'new_database', jobs, atomic: false }, db, file);
    const r = timed('sh', ['-c', script, 'sh', ...args], {
      env: { ...baseEnv, ...pgEnv, DB: db, TOKEN: apiKey, BASE: baseUrl, VIA: via, FILE: file, SHA: info.sha256 },
    });
    const m = /steps api=(\d+) download=(\d+) createdb=(\d+) pg_restore=(\d+)/.exec(r.stderr);
    if (m) steps.push({ api: Number(m[1]), download: Number(m[2]), createdb: Number(m[3]), pgRestore: Number(m[4]) });
    return r.ms;
  };

  const phases = { local: [], link: [] };
  const steps = { local: [], link: [] };
  const n = quick ? 1 : 3;
  log(`restore: ${n} interleaved rounds of svc restore create and the shell pipeline (--jobs ${jobs}), loopback and over the long link (${LINK_TEXT})`);
  const t = rounds(
    n,
    {
      shell: shellRestore('sh', sandbox.baseUrl, token, sandbox.baseUrl, steps.local),
      svc: svcRestore('svc', sandbox.baseUrl, token, phases.local),
      linkShell: shellRestore('lsh', linkSandbox.baseUrl, linkToken, link.base, steps.link),
      linkSvc: svcRestore('lsvc', linkSandbox.baseUrl, linkToken, phases.link),
    },
    { warmup: 0, between: dropAll },
  );

  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const med = (list, key) => median(list.map((x) => x[key] ?? 0));
  const svcPhases = (list) =>
    `svc phases (medians): preflight with getBackup ${s(med(list, 'preflight'))}, createRestore ${s(med(list, 'createRestore'))}, ` +
    `download ${s(med(list, 'download'))} over ${med(list, 'connections')} connections, verify ${s(med(list, 'verify'))}, ` +
    `restore (CREATE DATABASE + pg_restore) ${s(med(list, 'restore'))}, analyze ${s(med(list, 'analyze'))}, check ${s(med(list, 'check'))}, ` +
    `outside the phases (node start-up and loading, clean-up, exit) ${s(med(list, 'other'))}`;
  const withoutExtras = (svcMs, list, shellMs) => {
    const ms = median(svcMs) - med(list, 'analyze') - med(list, 'check');
    return `${s(ms)}, ${(ms / median(shellMs)).toFixed(2)}x`;
  };
  const pipeSteps = (list, dl) => `pipeline steps (medians): ${dl} ${s(med(list, 'download'))}, pg_restore alone ${s(med(list, 'pgRestore'))}`;
  const dumpText =
    `${fmtMiB(info.sizeBytes)} pg_dump -Fc of the seed database plus ${TABLES} tables x ${rowsPerTable.toLocaleString('en-US')} rows ` +
    `(bigint key, timestamptz, text, 128-char md5 text; ${(TABLES * rowsPerTable).toLocaleString('en-US')} rows)`;
  const argsText = pgRestoreArgs({ mode: 'new_database', jobs, atomic: false }, 'DB', 'FILE').join(' ');
  return [
    timeRow(
      `restore create, ${fmtMiB(info.sizeBytes)} dump, loopback (wall)`,
      median(t.svc),
      median(t.shell),
      1.1,
      fmtMs,
      `baseline curl | tee | sha256sum + psql CREATE DATABASE + pg_restore ${argsText} (no ANALYZE, no object check); ${n} runs each. ` +
        `Dump: ${dumpText}. ${pipeSteps(steps.local, 'curl | tee | sha256sum')}; ${svcPhases(phases.local)}; ` +
        `svc less its ANALYZE and object check: ${withoutExtras(t.svc, phases.local, t.shell)}`,
    ),
    timeRow(
      `restore create, ${fmtMiB(info.sizeBytes)} dump, long link (wall)`,
      median(t.linkSvc),
      median(t.linkShell),
      0.6,
      fmtMs,
      `the artifact through the long-link proxy (${LINK_TEXT}; presigned URLs of the sandbox name the proxy), the API direct, for both; ` +
        `baseline as in the loopback row; ${n} runs each. Dump: ${dumpText}, sized so pg_restore alone takes about as long as the one-stream download. ` +
        `${pipeSteps(steps.link, 'curl | tee | sha256sum over the link')}; ${svcPhases(phases.link)}; ` +
        `svc less its ANALYZE and object check (which the pipeline does not do): ${withoutExtras(t.linkSvc, phases.link, t.linkShell)}. ${STREAMING_NOTE}`,
    ),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

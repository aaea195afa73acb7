/**
 * Rows 9 to 12: `svc restore drill`, each against a baseline measured in the same run, interleaved,
 * medians.
 *  - Row 9: one drill of a ~10 MiB pg_dump -Fc (the seed database plus bulk tables, bench/lib/dump-fixture.mjs)
 *    served by `svc sandbox --data` as bj_0007's artifact, against the same job as a hand-written
 *    shell script: initdb, pg_ctl start -w, listDatabaseBackups, getBackup and createRestore with curl,
 *    curl | tee | sha256sum (checked against expectedSha256), createdb, pg_restore -j 2, ANALYZE,
 *    getRecoverySummary, pg_ctl stop -w, rm -rf. svc does more (version probes, the archive's table of
 *    contents, the extension and object checks, the data check and rows_match, SCRAM over TCP where the
 *    script uses trust on a private socket), as a drill runs by default: pg_restore as an owner role of its
 *    own (least privilege, cli-contract 9.9) and rows_match on. Target: at most 0.75x (issue 33 item 2:
 *    0.72x at db622a6, before both; 1.03x at 9f4147f).
 *  - Row 10: the scratch cluster alone, in this process: src/drill/cluster.ts startScratchCluster and
 *    stop(), against initdb + pg_ctl start -w + pg_ctl stop -w (-m fast) with the same initdb options
 *    and server settings: what svc's cached initdb template (copied, not made again, after a machine's
 *    first run) and its own readiness and shutdown polling (postmaster.pid every 10 ms, no pg_ctl wait)
 *    save over pg_ctl's 100 ms polling. Target: at most 1.0x.
 *  - Row 11: `--parallel 2` against `--parallel 1` on four small databases (test/support/big-org.ts's data
 *    set: db_orders, db_billing and two generated ones, whose backups serve the committed fixture dumps).
 *    Target: at least 1.5x as fast. A third variant, the first database alone at --parallel 1, splits
 *    the serial run into S + n * p (S what --parallel cannot split: node's start, preflight, the scratch
 *    cluster's start and stop; p one database), and the note gives the bound that puts on the speed-up:
 *    (S + n p) / (S + n/2 p). `node --import tsx bench/drill.mjs --parallel-only [--quick]` runs this row
 *    alone; bench/drill-cpu.mjs profiles the same drills in CPU time per process.
 *  - Row 12: the cost of rows_match: the drill of row 9 (--jobs 2) with the check, against the same with
 *    --no-rows-check: a second pg_restore reads the verified file while the restore runs and counts its
 *    rows, then count(*) per table in the scratch database. Target: at most 1.15x.
 *    `node --import tsx bench/drill.mjs --rows-match-only [--quick]` runs this row alone.
 *  - Row 13: the cost of the fingerprint (cli-contract 9.17: each table's size and the schema's digest, read
 *    in rows_match's own count query): rows_match's count query with the fingerprint and without it, run
 *    interleaved against the dump's source database (the same tables and schema the drill restores); the
 *    difference of the medians added to the drill of row 12 (with rows_match) against that drill without
 *    it. Target: at most 1.05x. Runs with row 12 (also with --rows-match-only).
 * As root, the scratch clusters (svc's and the script's) run as the postgres user, as svc runs them.
 * Everything lives in one temp dir; every cluster is stopped and the dir removed at the end, on
 * failure and on Ctrl-C (a net stops any postmaster still running under it).
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startScratchCluster } from '../src/drill/cluster.ts';
import { chooseIsolation } from '../src/drill/isolation.ts';
import { DataSession } from '../src/drill/data-session.ts';
import { countSql, DIGEST_SQL, tableListParam } from '../src/drill/rows-match.ts';
import { serverUser } from '../src/drill/os-user.ts';
import { findServerBinaries } from '../src/drill/server-binaries.ts';
import { writeBigOrgData } from '../test/support/big-org.ts';
import { startCluster } from '../test/support/pg-cluster.ts';
import {
  asyncRounds,
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
} from './lib/common.mjs';
import { sandboxDataWithDump, seedBulk, TABLES } from './lib/dump-fixture.mjs';
import { row, timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

const SOURCE_DB = 'bench_drill_source';
const DRILLED = 'db_orders';
const BACKUP_ID = 'bj_0007';
const DUMP_MIB = 10;
const PARALLEL_DBS = ['db_orders', 'db_billing', 'db_bulk_0001', 'db_bulk_0002'];
/** What svc's scratch cluster runs with (src/drill/cluster.ts), for the hand-run baselines. */
const THROWAWAY = '-c fsync=off -c synchronous_commit=off -c full_page_writes=off';

/**
 * What the fingerprint adds to rows_match's count: the count query with the tables' sizes and then
 * the schema's digest, against the count query without sizes, `n` interleaved runs each, against
 * `cluster`'s SOURCE_DB, each on a session of its own (node-postgres, as the drill's DataSession).
 */
async function fingerprintCost(cluster, n, log) {
  const tables = JSON.parse(await cluster.psql('SELECT json_agg(json_build_array(schemaname, relname)) FROM pg_stat_user_tables', SOURCE_DB));
  const config = {
    host: cluster.host,
    port: cluster.port,
    user: cluster.user,
    password: cluster.password,
    database: SOURCE_DB,
    ssl: false,
    plainFallback: false,
  };
  const params = [tableListParam(tables), 'UTF8'];
  const session = async (fn) => {
    const s = new DataSession(config, { scrub: (t) => t }, new AbortController().signal);
    const started = performance.now();
    const value = await fn(s);
    await s.close();
    return { ms: performance.now() - started, value };
  };
  const withTimes = [];
  const withoutTimes = [];
  let digestOk = false;
  log(`drill: ${n} interleaved rounds of rows_match's count query with and without the fingerprint (${tables.length} tables)`);
  for (let i = 0; i < n; i++) {
    const w = await session(async (s) => (await s.rows(countSql(true), params), (await s.rows(DIGEST_SQL))[0][0]));
    withTimes.push(w.ms);
    digestOk = /^[0-9a-f]{64}$/.test(w.value ?? '');
    withoutTimes.push((await session((s) => s.rows(countSql(false), params))).ms);
  }
  const [withMs, withoutMs] = [median(withTimes), median(withoutTimes)];
  return { withMs, withoutMs, deltaMs: Math.max(0, withMs - withoutMs), rounds: n, tables: tables.length, digestOk };
}

/** Every postmaster whose data dir is under `dir` (at most four levels down) gets an immediate shutdown; waits until they are gone. */
async function stopPostmastersUnder(dir) {
  const pids = [];
  const visit = (d, depth) => {
    const pidFile = join(d, 'postmaster.pid');
    if (existsSync(pidFile)) pids.push(Number(readFileSync(pidFile, 'utf8').split('\n')[0]));
    if (depth === 0) return;
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) visit(join(d, e.name), depth - 1);
  };
  if (existsSync(dir)) visit(dir, 4);
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const pid of pids.filter((p) => p > 0 && alive(p))) {
    process.kill(pid, 'SIGQUIT');
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(50);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** A directory the scratch clusters' user can enter (0711), or own (`own`: the script's clusters live there). */
function clusterDir(path, user, own = false) {
  mkdirSync(path, { recursive: true });
  chmodSync(path, own ? 0o700 : 0o711);
  if (own && user) chownSync(path, user.uid, user.gid);
  return path;
}

/** Nothing of a run may stay behind: its work dir is empty again. */
function assertEmpty(dir, who) {
  const left = readdirSync(dir);
  if (left.length) throw new Error(`${who} left ${left.join(', ')} in ${dir}`);
}

// The hand-written drill. Step times in ms on stderr for the note (six `date` calls: a few ms).
const SCRIPT = `set -eu
now() { date +%s%N; }
t0=$(now)
W=$(mktemp -d "$ROOTDIR/drill-XXXXXX")
cleanup() { [ -f "$W/data/postmaster.pid" ] && "$BIN/pg_ctl" stop -w -D "$W/data" -m immediate >/dev/null 2>&1; rm -rf "$W"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
"$BIN/initdb" -D "$W/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >/dev/null
"$BIN/pg_ctl" start -w -D "$W/data" -l "$W/server.log" -o "-c listen_addresses='' -k $W $THROWAWAY" >/dev/null
export PGHOST="$W" PGUSER=postgres
t1=$(now)
auth="authorization: Bearer $TOKEN"
curl -sS --fail -H "$auth" "$BASE/api/v1/databases/$DB/backups" >/dev/null
curl -sS --fail -H "$auth" "$BASE/api/v1/backups/$BACKUP" >/dev/null
body='{"backupJobId":"'"$BACKUP"'","targetRedactedDsn":"postgresql://postgres@localhost/drill","mode":"new_database","confirmDestructive":false}'
job=$(curl -sS --fail -X POST -H "$auth" -H 'content-type: application/json' -H "idempotency-key: drill-$t0" --data "$body" "$BASE/api/v1/restores")
url=$(printf '%s' "$job" | sed -n 's/.*"presignedS3Url": *"\\([^"]*\\)".*/\\1/p')
sha=$(printf '%s' "$job" | sed -n 's/.*"expectedSha256": *"\\([^"]*\\)".*/\\1/p')
sum=$(curl -sS --fail "$url" | tee "$W/artifact.dump" | sha256sum)
test "\${sum%% *}" = "$sha"
t2=$(now)
createdb -T template0 drill
pg_restore --no-owner --no-privileges --exit-on-error -j 2 -d drill "$W/artifact.dump"
t3=$(now)
psql -X -q -d drill -c ANALYZE
t4=$(now)
curl -sS --fail -H "$auth" "$BASE/api/v1/databases/$DB/recovery/summary" >/dev/null
"$BIN/pg_ctl" stop -w -D "$W/data" -m fast >/dev/null
rm -rf "$W"
t5=$(now)
echo "steps cluster=$(( (t1 - t0) / 1000000 )) api_download=$(( (t2 - t1) / 1000000 )) restore=$(( (t3 - t2) / 1000000 )) analyze=$(( (t4 - t3) / 1000000 )) stop=$(( (t5 - t4) / 1000000 ))" >&2
`;

export async function run({ quick, log, rowsMatchOnly = process.argv.includes('--rows-match-only'), parallelOnly = process.argv.includes('--parallel-only') }) {
  requireBuilt();
  requireTools(['curl', 'sha256sum', 'tee', 'sed', 'date', 'mktemp', 'psql', 'pg_restore', 'createdb']);
  const binaries = await findServerBinaries(undefined, process.env);
  const user = serverUser();
  const dir = tempDir('svc-bench-drill-');
  chmodSync(dir, 0o711);
  onCleanup(() => stopPostmastersUnder(dir));
  const baseEnv = directEnv(Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG') && !k.startsWith('SVC_'))));
  const home = clusterDir(join(dir, 'home'), undefined);

  const sandbox = async (data) =>
    (
      await startHelper(NODE, [SVC, 'sandbox', '--port', '0', '--data', data, '--json', '--quiet'], {
        label: 'svc sandbox',
        env: { ...baseEnv, HOME: home, XDG_CONFIG_HOME: home },
      })
    ).info;
  const tokenOf = (sb) => sb.tokens.find((t) => t.name === 'drill').token;
  const orgSandbox = () => {
    writeBigOrgData(join(dir, 'org'), { databases: 3 + 2 });
    return sandbox(join(dir, 'org'));
  };
  if (parallelOnly) return [parallelRow(await orgSandbox())];

  log(`drill: a ~${DUMP_MIB} MiB dump from a throwaway cluster`);
  const source = await startCluster();
  onCleanup(() => source.stop());
  const rowsPerTable = await seedBulk(source, SOURCE_DB, DUMP_MIB, (m) => log(`drill: ${m}`));
  const { dataDir, info } = await sandboxDataWithDump(source, SOURCE_DB, dir);
  const fingerprint = await fingerprintCost(source, quick ? 5 : 11, log);
  await source.stop();
  log(`drill: dump is ${fmtMiB(info.sizeBytes)}; starting svc sandbox with it${rowsMatchOnly ? '' : ', and one with four small databases'}`);
  if (rowsMatchOnly) return rowsMatchRows(await sandbox(dataDir));
  const [big, org] = await Promise.all([sandbox(dataDir), orgSandbox()]);

  function svcDrill(sb, work, ids, extra, out) {
    return () => {
      const r = timed(NODE, [SVC, 'restore', 'drill', ...ids, '--work-dir', work, '--json', ...extra], {
        env: { ...baseEnv, HOME: home, XDG_CONFIG_HOME: home, SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: tokenOf(sb) },
      });
      const doc = JSON.parse(r.stdout).drill;
      if (doc.failed !== 0 || doc.passed !== ids.length)
        throw new Error(`svc restore drill: ${doc.failed} of ${ids.length} failed: ${r.stdout.slice(0, 2000)}`);
      assertEmpty(work, 'svc restore drill');
      out?.push({ ms: r.ms, doc });
      return r.ms;
    };
  }

  /** Rows 12 and 13: rows_match on against off, the same drill of the 10 MiB dump, interleaved; then the fingerprint's share of it. */
  function rowsMatchRows(sb) {
    const rmWork = clusterDir(join(dir, 'work-rows'), user);
    const withRuns = [];
    const withoutRuns = [];
    const n = quick ? 5 : 11;
    log(`drill: ${n} interleaved rounds of svc restore drill --jobs 2, with rows_match and with --no-rows-check (${fmtMiB(info.sizeBytes)} dump)`);
    const t = rounds(n, {
      without: svcDrill(sb, rmWork, [DRILLED], ['--jobs', '2', '--no-rows-check'], withoutRuns),
      with: svcDrill(sb, rmWork, [DRILLED], ['--jobs', '2'], withRuns),
    });
    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const db = (r) => r.doc.databases[0];
    const med = (list, f) => median(list.map(f));
    const phase = (name) => (r) => db(r).phases[name] ?? 0;
    const check = db(withRuns[0]).checks.find((c) => c.name === 'rows_match');
    if (check?.status !== 'passed') throw new Error(`rows_match did not pass: ${JSON.stringify(check)}`);
    const withFingerprint = median(t.with);
    const fingerprintRow = timeRow(
      `restore drill: the fingerprint's cost beside rows_match, ${fmtMiB(info.sizeBytes)} dump (wall)`,
      withFingerprint,
      withFingerprint - fingerprint.deltaMs,
      1.05,
      fmtMs,
      `figure: the drill with rows_match of the row above (its count query reads the fingerprint too); baseline: that drill less what the fingerprint ` +
        `adds to the query: ${fingerprint.deltaMs.toFixed(1)} ms, the median of rows_match's count query with the fingerprint (${fingerprint.withMs.toFixed(1)} ms) ` +
        `less without it (${fingerprint.withoutMs.toFixed(1)} ms), ${fingerprint.rounds} interleaved runs each against the dump's source database ` +
        `(${fingerprint.tables} tables; the session's start included in both); a fingerprint of ${fingerprint.digestOk ? 'a 64-hex schema digest' : 'NO digest'}`,
    );
    return [
      timeRow(
        `restore drill with rows_match, ${fmtMiB(info.sizeBytes)} dump (wall)`,
        median(t.with),
        median(t.without),
        1.15,
        fmtMs,
        `baseline: the same drill with --no-rows-check; --jobs 2; ${n} runs each, interleaved. rows_match: ${check.detail}. ` +
          `Medians with / without: restore phase (pg_restore, and the counting pg_restore beside it) ${s(med(withRuns, phase('restore')))} / ${s(med(withoutRuns, phase('restore')))}, ` +
          `check phase (the object check, then the wait for the count) ${s(med(withRuns, phase('check')))} / ${s(med(withoutRuns, phase('check')))}, ` +
          `count(*) per table (the rows_match check) ${s(med(withRuns, (r) => db(r).checks.find((c) => c.name === 'rows_match').durationMs))}; ` +
          `recovery time ${s(med(withRuns, (r) => db(r).recoveryTimeMs))} / ${s(med(withoutRuns, (r) => db(r).recoveryTimeMs))}`,
      ),
      fingerprintRow,
    ];
  }

  /** Row 11: --parallel 2 against --parallel 1, with the first database alone to split off the part --parallel cannot. */
  function parallelRow(sb) {
    const work3 = clusterDir(join(dir, 'work3'), user);
    const oneRuns = [];
    const serialRuns = [];
    const parallelRuns = [];
    const n = PARALLEL_DBS.length;
    const n3 = quick ? 3 : 5;
    log(`drill: ${n3} interleaved rounds of svc restore drill of ${n} databases, --parallel 1 and --parallel 2, and of ${PARALLEL_DBS[0]} alone`);
    const t3 = rounds(n3, {
      one: svcDrill(sb, work3, PARALLEL_DBS.slice(0, 1), ['--parallel', '1'], oneRuns),
      serial: svcDrill(sb, work3, PARALLEL_DBS, ['--parallel', '1'], serialRuns),
      parallel: svcDrill(sb, work3, PARALLEL_DBS, ['--parallel', '2'], parallelRuns),
    });
    const fixtureSizes = ['acme-orders', 'billing']
      .map((name) => `${name} ${(JSON.parse(readFileSync(join(ROOT, 'fixtures', 'artifacts', `${name}.json`), 'utf8')).sizeBytes / 1024).toFixed(0)} KiB`)
      .join(', ');
    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const perDb = (runs) => s(median(runs.flatMap((r) => r.doc.databases.map((d) => d.recoveryTimeMs))));
    const ratio = median(t3.serial) / median(t3.parallel);
    // Amdahl: serial = S + n p, one = S + p; at --parallel 2 the databases' part at best halves.
    const p = (median(t3.serial) - median(t3.one)) / (n - 1);
    const fixed = median(t3.one) - p;
    const bound = median(t3.serial) / (fixed + (n / 2) * p);
    return row({
      what: `restore drill of ${n} small databases, --parallel 2 (speed-up)`,
      figure: fmtMs(median(t3.parallel)),
      baseline: fmtMs(median(t3.serial)),
      ratio: `${ratio.toFixed(2)}x`,
      targetText: '>= 1.5x',
      pass: ratio >= 1.5,
      note:
        `ratio = --parallel 1 wall / --parallel 2 wall; ${PARALLEL_DBS.join(', ')} (the committed fixture dumps: ${fixtureSizes}), ` +
        `one scratch cluster per run; ${n3} runs each. Median recovery time per database: ${perDb(serialRuns)} one at a time, ${perDb(parallelRuns)} two at a time. ` +
        `${PARALLEL_DBS[0]} alone took ${s(median(t3.one))}: the part --parallel cannot split (node's start, preflight, the scratch cluster's start and stop, exit) is ${s(fixed)}, ` +
        `each database ${s(p)}, so even two databases at once at full speed give at most ${bound.toFixed(2)}x`,
    });
  }

  // Row 9.
  const work = clusterDir(join(dir, 'work'), user);
  const shRoot = clusterDir(join(dir, 'sh'), user, true);
  const svcRuns = [];
  const steps = [];
  const shell = () => {
    const r = timed('sh', ['-c', SCRIPT], {
      cwd: shRoot,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      env: {
        PATH: baseEnv.PATH,
        LC_ALL: 'C',
        ROOTDIR: shRoot,
        BIN: binaries.dir,
        THROWAWAY,
        TOKEN: tokenOf(big),
        BASE: big.baseUrl,
        DB: DRILLED,
        BACKUP: BACKUP_ID,
      },
    });
    const m = /steps cluster=(\d+) api_download=(\d+) restore=(\d+) analyze=(\d+) stop=(\d+)/.exec(r.stderr);
    if (m) steps.push({ cluster: +m[1], apiDownload: +m[2], restore: +m[3], analyze: +m[4], stop: +m[5] });
    assertEmpty(shRoot, 'the shell drill');
    return r.ms;
  };
  const n1 = quick ? 3 : 7;
  log(`drill: ${n1} interleaved rounds of svc restore drill and the shell drill (${fmtMiB(info.sizeBytes)} dump)`);
  const t1 = rounds(n1, { shell, svc: svcDrill(big, work, [DRILLED], ['--jobs', '2'], svcRuns) });

  // Row 10.
  const abort = new AbortController().signal;
  const clusterWork = clusterDir(join(dir, 'cluster'), user);
  const handRoot = clusterDir(join(dir, 'hand'), user, true);
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const serverEnv = { PATH: baseEnv.PATH, LC_ALL: 'C' };
  // As a drill chooses it by default (--isolation auto): confined where the kernel allows.
  const isolation = await chooseIsolation('auto', binaries.dir, clusterWork, serverEnv, () => undefined);
  const svcCluster = async () => {
    const started = performance.now();
    const cluster = await startScratchCluster(binaries, clusterWork, serverEnv, abort, isolation);
    const ready = performance.now();
    await cluster.stop();
    const stopped = performance.now();
    assertEmpty(clusterWork, 'the scratch cluster');
    return { ms: stopped - started, start: ready - started, stop: stopped - ready };
  };
  let handSerial = 0;
  const handCluster = async () => {
    const port = await freePort();
    const d = join(handRoot, `c${++handSerial}`);
    const data = join(d, 'data');
    const opts = { cwd: handRoot, env: serverEnv, ...as };
    const pg = (program, args) => timed(join(binaries.dir, program), args, opts).ms;
    const started = performance.now();
    // The directory and password file as svc makes them: in this process, then handed to the server's user.
    mkdirSync(d, { mode: 0o700 });
    writeFileSync(join(d, 'pwfile'), 'bench-password\n', { mode: 0o600 });
    if (user) for (const f of [d, join(d, 'pwfile')]) chownSync(f, user.uid, user.gid);
    const init = pg('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth-host=scram-sha-256',
      '--auth-local=trust',
      `--pwfile=${join(d, 'pwfile')}`,
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const start = pg('pg_ctl', ['start', '-w', '-D', data, '-l', join(d, 'server.log'), '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${d} ${THROWAWAY}`]);
    const stop = pg('pg_ctl', ['stop', '-w', '-D', data, '-m', 'fast']);
    rmSync(d, { recursive: true, force: true });
    return { ms: performance.now() - started, init, start, stop };
  };
  const n2 = quick ? 5 : 11;
  log(`drill: ${n2} interleaved rounds of the scratch cluster's start and stop, svc's and by hand`);
  const t2 = await asyncRounds(n2, { hand: handCluster, svc: svcCluster });
  assertEmpty(handRoot, 'the hand-run cluster');

  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const med = (list, f) => median(list.map(f));
  const db = (run) => run.doc.databases[0];
  const phase = (name) => (run) => db(run).phases[name] ?? 0;
  const check = (name) => (run) => db(run).checks.find((c) => c.name === name)?.durationMs ?? 0;
  const svcNote =
    `svc (medians): recovery time (createRestore to the last check) ${s(med(svcRuns, (r) => db(r).recoveryTimeMs))} of ${s(median(t1.svc))}: ` +
    `createRestore ${s(med(svcRuns, phase('createRestore')))}, download ${s(med(svcRuns, phase('download')))}, verify ${s(med(svcRuns, phase('verify')))}, ` +
    `restore (CREATE DATABASE + pg_restore) ${s(med(svcRuns, phase('restore')))}, analyze ${s(med(svcRuns, phase('analyze')))}, ` +
    `object check ${s(med(svcRuns, phase('check')))}, data check ${s(med(svcRuns, check('data_present')))}, rows_match ${s(med(svcRuns, check('rows_match')))} ` +
    `(one session for both); svc less the checks the script does not do (the archive's table of contents, the object, data and row checks): ` +
    `${s(median(t1.svc) - med(svcRuns, phase('verify')) - med(svcRuns, phase('check')) - med(svcRuns, check('data_present')) - med(svcRuns, check('rows_match')))}; ` +
    `before createRestore and after the last check (node start-up, preflight, the cluster's start, backup selection, the drop, the cluster's stop, exit) ` +
    `${s(med(svcRuns, (r) => r.ms - db(r).recoveryTimeMs))}`;
  const shNote =
    `script (medians): initdb + pg_ctl start -w ${s(med(steps, (x) => x.cluster))}, API calls + download ${s(med(steps, (x) => x.apiDownload))}, ` +
    `createdb + pg_restore ${s(med(steps, (x) => x.restore))}, ANALYZE ${s(med(steps, (x) => x.analyze))}, summary + pg_ctl stop -w + rm ${s(med(steps, (x) => x.stop))}`;
  const hand = t2.hand;
  const svcC = t2.svc;
  const rowsMatch = rowsMatchRows(big);
  return [
    timeRow(
      `restore drill, least privilege and rows_match, ${fmtMiB(info.sizeBytes)} dump (wall)`,
      median(t1.svc),
      median(t1.shell),
      0.75,
      fmtMs,
      `baseline: the same job as a shell script (initdb, pg_ctl start -w, curl for listDatabaseBackups, getBackup, createRestore and getRecoverySummary, ` +
        `curl | tee | sha256sum, createdb, pg_restore -j 2, ANALYZE, pg_ctl stop -w, rm -rf; trust on a private socket), svc with --jobs 2; ${n1} runs each. ` +
        `Dump: pg_dump -Fc of the seed database plus ${TABLES} tables x ${rowsPerTable.toLocaleString('en-US')} rows. ${shNote}; ${svcNote}`,
    ),
    timeRow(
      'scratch cluster start + stop (wall)',
      median(svcC.map((x) => x.ms)),
      median(hand.map((x) => x.ms)),
      1.0,
      fmtMs,
      `svc: startScratchCluster (a copy of its cached initdb template, which only a machine's first run makes with initdb; pg_ctl start without -w, postmaster.pid read every 10 ms until ready; the random password set) ${s(med(svcC, (x) => x.start))} + ` +
        `stop() (pg_ctl stop -m fast without -w, the postmaster's pid polled every 10 ms, rm) ${s(med(svcC, (x) => x.stop))}; ` +
        `by hand: initdb ${s(med(hand, (x) => x.init))} + pg_ctl start -w ${s(med(hand, (x) => x.start))} + pg_ctl stop -w -m fast ${s(med(hand, (x) => x.stop))}, ` +
        `the same initdb options and settings; ${n2} runs each, in this process (no node start-up on svc's side)`,
    ),
    parallelRow(org),
    ...rowsMatch,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

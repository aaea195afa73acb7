/**
 * Row 12: `svc restore drill --all --dry-run` of an organization of 1,000 databases with 100 backup
 * jobs each (test/support/big-org.ts, `jobsPerDatabase: 100`: a 6-hour cadence, 25 days of history),
 * served by `svc sandbox --data` (its backup lists page newest first, 20 jobs a page, as the default).
 * A dry run chooses every database's backup and creates nothing, so its requests are the selection's:
 * counted from svc's own `--verbose` lines (one per HTTP exchange), per database, with the wall time.
 * Target: at most 15 requests per database (cli-contract 6, v4: a bounded selection). The baseline is
 * what reading the whole history would cost (every list page and a getBackup per completed job, the
 * selection before v4), computed from the data set. Run on its own with `npm run build && node
 * --import tsx bench/drill-org.mjs [--quick]`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBigOrgData } from '../test/support/big-org.ts';
import { directEnv, fmtMs, median, MiB, NODE, requireBuilt, ROOT, startHelper, SVC, tempDir } from './lib/common.mjs';
import { row } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

const DATABASES = 1000;
const JOBS = 100;
const TARGET_PER_DB = 15;

export async function run({ quick, log }) {
  requireBuilt();
  const dir = tempDir('svc-bench-drill-org-');
  log(`drill-org: writing an organization of ${DATABASES} databases x ${JOBS} jobs`);
  const org = writeBigOrgData(join(dir, 'org'), { databases: DATABASES, jobsPerDatabase: JOBS, pageSize: 100 });
  const world = JSON.parse(readFileSync(join(org.dir, 'sandbox', 'world.json'), 'utf8'));
  const settings = JSON.parse(readFileSync(join(org.dir, 'sandbox', 'settings.json'), 'utf8'));
  const backupsPage = settings.pageSize.perList.backupJobs ?? settings.pageSize.default;
  const jobsOf = new Map();
  for (const j of world.backupJobs) jobsOf.set(j.protectedDatabaseId, [...(jobsOf.get(j.protectedDatabaseId) ?? []), j]);
  // Reading everything: every page of the list, getBackup of every completed job, and getDatabase for the name.
  const fullRead = org.databaseIds.map((id) => {
    const jobs = jobsOf.get(id) ?? [];
    return Math.max(1, Math.ceil(jobs.length / backupsPage)) + jobs.filter((j) => j.state === 'completed').length + 1;
  });
  const fullPerDb = fullRead.reduce((a, b) => a + b, 0) / DATABASES;

  const home = tempDir('svc-bench-drill-org-home-');
  const baseEnv = directEnv(Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG') && !k.startsWith('SVC_'))));
  const env = { ...baseEnv, HOME: home, XDG_CONFIG_HOME: home };
  log('drill-org: starting svc sandbox with it');
  const loadStarted = performance.now();
  const sb = (await startHelper(NODE, [SVC, 'sandbox', '--port', '0', '--data', org.dir, '--json', '--quiet'], { label: 'svc sandbox', env })).info;
  const loadMs = performance.now() - loadStarted;
  const token = sb.tokens.find((t) => t.name === org.tokenName).token;
  const work = tempDir('svc-bench-drill-org-work-');

  const n = quick ? 1 : 3;
  const runs = [];
  for (let i = 0; i < n; i++) {
    log(`drill-org: svc restore drill --all --dry-run (${i + 1}/${n})`);
    const started = performance.now();
    const r = spawnSync(NODE, [SVC, 'restore', 'drill', '--all', '--dry-run', '--json', '--verbose', '--work-dir', work], {
      cwd: ROOT,
      env: { ...env, SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: token },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 256 * MiB,
    });
    const ms = performance.now() - started;
    // Exit 13 is expected: the generated databases without a completed backup (every 50th) have nothing to drill.
    if (r.error) throw r.error;
    if (r.status !== 0 && r.status !== 13) throw new Error(`svc restore drill --all --dry-run exited ${r.status ?? r.signal}:\n${r.stderr.slice(-2000)}`);
    runs.push({ ms, stdout: r.stdout, stderr: r.stderr });
  }
  return runs.length ? [summarize(runs, { fullPerDb, loadMs, backupsPage })] : [];
}

function summarize(runs, { fullPerDb, loadMs, backupsPage }) {
  const counts = runs.map((r) => {
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('http '));
    const by = (re) => lines.filter((l) => re.test(l)).length;
    return {
      all: lines.length,
      getBackup: by(/^http GET \/api\/v1\/backups\//),
      listBackups: by(/^http GET \/api\/v1\/databases\/[^/ ]+\/backups/),
      getDatabase: by(/^http GET \/api\/v1\/databases\/[^/ ?]+ /),
      run: by(/^http GET \/api\/v1\/(profile|databases)[ ?]/),
      tooMany: by(/ 429 /),
    };
  });
  const c = counts[0];
  const perDb = (c.all - c.run) / DATABASES;
  const wall = median(runs.map((r) => r.ms));
  const planned = JSON.parse(runs[0].stdout).drill.databases.filter((d) => d.result === 'planned').length;
  return row({
    what: `restore drill --all --dry-run, ${DATABASES} databases x ${JOBS} jobs (requests per database; wall ${fmtMs(wall)})`,
    figure: perDb.toFixed(2),
    baseline: fullPerDb.toFixed(1),
    ratio: `${(perDb / fullPerDb).toFixed(3)}x`,
    targetText: `<= ${TARGET_PER_DB} per db`,
    pass: perDb <= TARGET_PER_DB && counts.every((x) => x.all === c.all),
    note:
      `${c.all} requests in all: ${c.listBackups} listDatabaseBackups pages, ${c.getBackup} getBackup, ${c.getDatabase} getDatabase, ` +
      `${c.run} for the run (getProfile, listDatabases pages), ${c.tooMany} answered 429; ${planned} of ${DATABASES} databases planned ` +
      `(every 50th has no completed backup). Wall: median of ${runs.length} run(s), ${runs.map((r) => fmtMs(r.ms)).join(', ')}, ` +
      `one keep-alive connection, eight databases' selections at once; the sandbox loaded the data set in ${fmtMs(loadMs)}. ` +
      `Baseline: reading the whole history (${backupsPage}-job pages, getBackup of every completed job, getDatabase), computed from the data set`,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

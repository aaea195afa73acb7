#!/usr/bin/env node
/**
 * `npm run demo`: the whole svc flow on this machine, ending in restored rows.
 *
 * Starts `svc sandbox` in-process on a free port and, where PostgreSQL server binaries are installed,
 * a throwaway cluster on 127.0.0.1; then runs the real CLI (bin/svc, built into dist/) step by step
 * as child processes whose output goes straight to this terminal. Everything it starts is stopped again,
 * also after a failed step or Ctrl-C. It never reads or writes your svc config or keychain: the
 * children get their own XDG_CONFIG_HOME and the sandbox token in SVC_API_KEY.
 *
 *   npm run demo                      # build, then run every step
 *   npm run demo -- --no-restore      # skip the restore (and the PostgreSQL cluster)
 *
 * The sandbox and the cluster helpers are imported as TypeScript sources, so this script runs under
 * tsx (`node --import tsx`, as npm run demo does); the svc children run the plain bundle.
 *
 * Exit status: 0 when every step passed; the failed step's exit code otherwise; 130 on Ctrl-C, 143 on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPgBinDir, pgServerAvailable, startCluster, clientEnv } from '../test/support/pg-cluster.ts';
import { describeDatabase, quoteIdent } from '../test/support/seed.ts';
import { startSandbox } from '../src/sandbox/index.ts';
import { DRIFT, writeDriftSandboxData } from '../test/support/sandbox-data.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SVC = join(ROOT, 'bin', 'svc');
const DATABASE = 'db_orders';
const RESTORED_DB = 'demo_restored';
/** A second, direct pg_restore of the same artifact: what the CLI's restore is checked against. */
const REFERENCE_DB = 'demo_reference';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log('usage: npm run demo [-- --no-restore]\n\nRuns svc against a local sandbox and, with PostgreSQL installed, restores into a throwaway cluster.');
  process.exit(0);
}
const unknown = args.filter((a) => a !== '--no-restore');
if (unknown.length) {
  console.error(`demo: unknown argument ${unknown[0]} (try --help)`);
  process.exit(2);
}
const wantRestore = !args.includes('--no-restore');

// ---------------------------------------------------------------- output

const color = process.stdout.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint('1');
const dim = paint('2');
const cyan = paint('36');
const green = paint('32');
const red = paint('31');
const yellow = paint('33');

const say = (line = '') => process.stdout.write(`${line}\n`);

let stepNo = 0;
let stepCount = 0;
function header(title, shown) {
  stepNo += 1;
  say();
  say(bold(`── ${stepNo}/${stepCount}  ${title}`));
  say(cyan(`$ ${shown}`));
}

// ---------------------------------------------------------------- cleanup and signals

/** Undo actions, run last-in first-out: whatever was started is stopped, whatever was created is removed. */
const cleanups = [];
/** Last-resort removal of temp dirs when a second Ctrl-C leaves without the async cleanups. */
const syncCleanups = [];
/** What the closing line says was stopped. */
const stopped = [];
let current; // the running child process, if any
let interrupted; // 'SIGINT' | 'SIGTERM' once asked to stop

class Interrupted extends Error {}
class StepFailed extends Error {
  constructor(message, exitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

function onSignal(signal) {
  if (interrupted) {
    // Second Ctrl-C: leave now, and so does svc on its second SIGINT. pg-cluster's exit hook still
    // takes the postmaster down and removes its dir; the sandbox lives in this process.
    if (current && current.exitCode === null) current.kill('SIGINT');
    for (const fn of syncCleanups) fn();
    process.exit(signal === 'SIGTERM' ? 143 : 130);
  }
  interrupted = signal;
  say();
  say(yellow(`Interrupted (${signal}): stopping what the demo started… (Ctrl-C again to leave at once)`));
  // Children run in their own process group (see run()), so a terminal Ctrl-C reaches only this
  // process: forward exactly one SIGINT, which svc answers by cleaning up and exiting 130.
  if (current && current.exitCode === null) current.kill('SIGINT');
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

function checkInterrupted() {
  if (interrupted) throw new Interrupted();
}

// ---------------------------------------------------------------- child processes

/**
 * Runs one command with this terminal's stdout and stderr, so svc's own output (tables, spinners,
 * colours) passes through unchanged. Detached: a terminal Ctrl-C goes to the demo, which forwards it once.
 */
function run(file, argv, env) {
  checkInterrupted();
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    current = child;
    child.once('error', (err) => {
      current = undefined;
      reject(err);
    });
    child.once('exit', (code, signal) => {
      current = undefined;
      resolve(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1));
    });
  });
}

/** One step; `expected` lists the exit codes that are its right outcome (a drill that shows a failure exits 13). */
async function step(title, shown, file, argv, env, expected = [0]) {
  header(title, shown);
  const code = await run(file, argv, env);
  checkInterrupted();
  if (!expected.includes(code)) throw new StepFailed(`step ${stepNo} failed with exit code ${code}: ${shown}`, code);
  return code;
}

/** The environment of every svc child: yours, minus SVC_* and PG* settings that would steer it elsewhere. */
function baseEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('SVC_') && !k.startsWith('PG')) env[k] = v;
  }
  return { ...env, ...extra };
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const sha256File = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

// ---------------------------------------------------------------- the demo

/** What main() returns when its last steps ran: the drill exited 13, as the demo meant it to. */
const DRILL_FAILED_ON_PURPOSE = 'drill failed on purpose';

async function main() {
  const restoreReason = !wantRestore
    ? 'as asked with --no-restore'
    : !pgServerAvailable()
      ? findPgBinDir()
        ? 'PostgreSQL is installed, but as root the throwaway server needs `runuser` and a `postgres` OS user'
        : 'no PostgreSQL server binaries (initdb, postgres) under /usr/lib/postgresql/*/bin'
      : undefined;
  stepCount = restoreReason ? 5 : 10;

  say(bold('svc demo: the real CLI against a local sandbox of the Backup Protection Service API v1'));
  say(dim('The sandbox serves fixture data from memory; it is not the service and backs nothing up.'));

  const configHome = await mkdtemp(join(tmpdir(), 'svc-demo-'));
  const removeConfig = () => rmSync(configHome, { recursive: true, force: true });
  cleanups.push(async () => removeConfig());
  syncCleanups.push(removeConfig);

  // Request log of the in-process sandbox: how the demo learns which job `backups trigger --wait` followed,
  // and proof that the restore downloaded the sandbox's artifact.
  const requests = [];
  // fixtures/ plus db_inventory, whose newest backup lost 90% of its orders: the drill's drift check shows it.
  const dataDir = join(configHome, 'sandbox-data');
  writeDriftSandboxData(dataDir);
  const sandbox = await startSandbox({ port: 0, dataDir, recentTimestamps: true, onRequest: (e) => requests.push(e) });
  cleanups.push(() => sandbox.stop());
  stopped.push('the sandbox');
  checkInterrupted();

  let cluster;
  if (!restoreReason) {
    say(dim('Starting a throwaway PostgreSQL cluster (initdb into a temp dir; removed at the end)…'));
    try {
      cluster = await startCluster();
    } catch (err) {
      checkInterrupted();
      throw new StepFailed(
        `could not start a throwaway PostgreSQL cluster: ${err instanceof Error ? err.message : String(err)}\n(npm run demo -- --no-restore runs the other steps)`,
        1,
      );
    }
    cleanups.push(() => cluster.stop());
    stopped.push('the PostgreSQL cluster');
    checkInterrupted();
  }

  const token = sandbox.token('full');
  const env = baseEnv({
    SVC_BASE_URL: sandbox.baseUrl,
    SVC_API_KEY: token,
    XDG_CONFIG_HOME: configHome,
    // svc runs the cluster's own pg_restore and psql: same version as the server, whatever else is on PATH.
    ...(cluster ? { PATH: `${cluster.binDir}${delimiter}${process.env.PATH ?? ''}` } : {}),
  });
  const svc = (argv) => [process.execPath, [SVC, ...argv]];

  say();
  say(`  sandbox     ${sandbox.baseUrl}  (fixtures/, plus ${DRIFT.databaseId}: a backup that lost rows)`);
  say(`  PostgreSQL  ${cluster ? `throwaway cluster on 127.0.0.1:${cluster.port} (${cluster.binDir})` : `none: ${restoreReason}`}`);
  say(`  config dir  ${configHome}  (your own svc config and keychain are not touched)`);
  say();
  say(dim('Every step below runs bin/svc with:'));
  say(cyan(`$ export SVC_BASE_URL=${sandbox.baseUrl}`));
  say(cyan('$ export SVC_API_KEY=<the sandbox token "full", see `svc sandbox`>'));

  await step('Which token is in use, and what may it do?', 'svc auth status', ...svc(['auth', 'status']), env);
  await step('The protected databases of the organization', 'svc databases list', ...svc(['databases', 'list']), env);

  const pollsBefore = requests.length;
  await step(
    'Back up db_orders now and follow the job to the end',
    `svc backups trigger ${DATABASE} --wait`,
    ...svc(['backups', 'trigger', DATABASE, '--wait']),
    env,
  );
  const polled = requests
    .slice(pollsBefore)
    .map((e) => /^\/api\/v1\/backups\/([^/]+)$/.exec(e.path)?.[1])
    .filter(Boolean);
  const jobId = polled.at(-1);
  if (!jobId) throw new StepFailed('could not tell which backup job `svc backups trigger --wait` followed', 1);

  await step('The evidence recorded for that backup', `svc evidence get ${jobId}`, ...svc(['evidence', 'get', jobId]), env);
  await step('What the service can prove about recovering db_orders', `svc recovery summary ${DATABASE}`, ...svc(['recovery', 'summary', DATABASE]), env);

  if (!cluster) {
    say();
    say(yellow(`Skipped the restore and the restored rows: ${restoreReason}.`));
    say(
      wantRestore
        ? 'To see the last steps (restore the backup into a new local database, then query it), install PostgreSQL\n' +
            'and run the demo again:  sudo apt-get install postgresql   (Debian/Ubuntu; the server need not be running)'
        : 'Run `npm run demo` without --no-restore to restore the backup into a throwaway local database.',
    );
    return 'restore skipped';
  }

  // The password reaches svc only through SVC_TARGET_DSN in its environment: never argv, never the output.
  const targetShown = cluster.dsn(RESTORED_DB).replace('postgres@', 'postgres:***@');
  const downloadsBefore = requests.length;
  await step(
    'Restore that backup into a new local database (download, verify SHA-256, pg_restore)',
    `SVC_TARGET_DSN='${targetShown}' svc restore create --backup ${jobId}`,
    ...svc(['restore', 'create', '--backup', jobId]),
    { ...env, SVC_TARGET_DSN: cluster.dsn(RESTORED_DB, true) },
  );
  const downloads = requests.slice(downloadsBefore).filter((e) => e.path.startsWith('/artifacts/') && e.status < 300);
  if (downloads.length === 0) throw new StepFailed('the restore finished without downloading the sandbox artifact', 1);

  const sql = [
    "SELECT 'customers' AS table_name, count(*) AS row_count FROM customers UNION ALL SELECT 'orders', count(*) FROM orders",
    'SELECT o.invoice_number, c.name AS customer, o.status, o.amount, o.placed_at FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id LIMIT 5',
  ];
  await step(
    'The restored rows',
    [`PGPASSWORD=*** psql ${cluster.dsn(RESTORED_DB)}`, ...sql.map((q) => `    -c "${q}"`)].join(' \\\n'),
    join(cluster.binDir, 'psql'),
    ['-X', '-w', '-P', 'pager=off', '-h', cluster.host, '-p', String(cluster.port), '-U', cluster.user, '-d', RESTORED_DB, ...sql.flatMap((q) => ['-c', q])],
    { ...clientEnv(cluster), PGTZ: 'UTC' },
  );

  await checkAgainstArtifact(cluster, sandbox);

  // Last night's drill of db_inventory (its older backup, still whole) is the baseline; tonight's drill
  // of the whole organization restores each database's newest backup into a throwaway scratch cluster
  // of svc's own, checks it against that baseline and removes it. db_analytics has no completed backup,
  // and db_inventory's newest backup restores faithfully but lost 90% of its orders: the drill shows
  // passes and both failures, and exits 13.
  const baselineDir = join(configHome, 'drill-baseline');
  await step(
    "Last night's drill of db_inventory (its earlier backup): the baseline",
    `svc restore drill ${DRIFT.databaseId} --backup ${DRIFT.wholeBackup} --report ${baselineDir}`,
    ...svc(['restore', 'drill', DRIFT.databaseId, '--backup', DRIFT.wholeBackup, '--report', baselineDir]),
    env,
  );
  const reportDir = join(configHome, 'drill-report');
  const drilled = await step(
    'Prove that every database restores, and still holds its data: a restore drill against the baseline',
    `svc restore drill --all --baseline ${baselineDir} --report ${reportDir}`,
    ...svc(['restore', 'drill', '--all', '--baseline', baselineDir, '--report', reportDir]),
    env,
    [0, 13],
  );
  if (drilled !== 13) throw new StepFailed('the drill was expected to show db_analytics and db_inventory failing (exit 13)', 1);
  const report = JSON.parse(readFileSync(join(reportDir, 'drill.json'), 'utf8')).drill;
  const drift = report.databases.find((d) => d.databaseId === DRIFT.databaseId);
  if (drift?.failure?.check !== 'no_drift')
    throw new StepFailed(`the drill was expected to fail ${DRIFT.databaseId} at no_drift, not ${drift?.failure?.check ?? 'pass it'}`, 1);
  say(
    green(
      `✓ Exit 13 is what this step is for: db_analytics has no restorable backup and ${DRIFT.databaseId}'s newest backup lost most of its orders, so the drill fails both, as it would real ones.`,
    ),
  );
  await step("The drill's Markdown summary, fit for a CI job summary", `cat ${join(reportDir, 'drill.md')}`, 'cat', [join(reportDir, 'drill.md')], env);
  return DRILL_FAILED_ON_PURPOSE;
}

/**
 * The restored database must be exactly what the sandbox's artifact holds: same file and digest as
 * fixtures/artifacts, and the same tables, rows, sequences, indexes and views as a direct pg_restore of it.
 */
async function checkAgainstArtifact(cluster, sandbox) {
  const { path, sha256, sizeBytes } = sandbox.artifact;
  const onDisk = sha256File(path);
  if (onDisk !== sha256) throw new StepFailed(`${path} has SHA-256 ${onDisk}, but the sandbox advertises ${sha256}`, 1);

  await cluster.psql(`CREATE DATABASE ${quoteIdent(REFERENCE_DB)} TEMPLATE template0`);
  const restore = await run(
    join(cluster.binDir, 'pg_restore'),
    ['--no-owner', '--no-privileges', '--exit-on-error', '-w', '-h', cluster.host, '-p', String(cluster.port), '-U', cluster.user, '-d', REFERENCE_DB, path],
    clientEnv(cluster),
  );
  if (restore !== 0) throw new StepFailed(`a direct pg_restore of ${path} failed with exit code ${restore}`, 1);

  const restored = await describeDatabase(cluster, RESTORED_DB);
  const reference = await describeDatabase(cluster, REFERENCE_DB);
  const problems = [];
  if (JSON.stringify(restored) !== JSON.stringify(reference)) {
    problems.push(`shape differs: restored ${JSON.stringify(restored)} vs artifact ${JSON.stringify(reference)}`);
  }
  for (const table of Object.keys(reference.tables)) {
    const [schema, name] = table.includes('.') ? table.split(/\.(.*)/s) : ['public', table];
    const digestSql = `SET TIME ZONE 'UTC'; SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) FROM ${quoteIdent(schema)}.${quoteIdent(name)} t`;
    const [a, b] = await Promise.all([cluster.psql(digestSql, RESTORED_DB), cluster.psql(digestSql, REFERENCE_DB)]);
    if (a !== b) problems.push(`rows of ${table} differ`);
  }
  if (problems.length) throw new StepFailed(`${RESTORED_DB} does not match the artifact:\n  ${problems.join('\n  ')}`, 1);

  const rows = Object.entries(reference.tables)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
  say();
  say(
    green(`✓ ${RESTORED_DB} matches the artifact the sandbox served`) +
      ` (${relative(ROOT, path)}, ${sizeBytes} bytes, SHA-256 ${sha256.slice(0, 12)}…): ` +
      `rows ${rows}; ${plural(Object.keys(reference.sequences).length, 'sequence')}, ${plural(reference.indexes.length, 'index', 'indexes')}, ` +
      `${plural(reference.views.length, 'view')}; every row identical to a direct pg_restore of the file.`,
  );
}

let exitCode = 0;
try {
  const note = await main();
  say();
  const ended =
    note === DRILL_FAILED_ON_PURPOSE
      ? `every step ended as intended; the drill's exit 13 was the demo's point`
      : `every step passed${note ? ` (${note})` : ''}`;
  say(green(`Demo finished: ${ended}.`));
} catch (err) {
  if (err instanceof Interrupted || interrupted) {
    exitCode = interrupted === 'SIGTERM' ? 143 : 130;
  } else if (err instanceof StepFailed) {
    say();
    say(red(`Demo failed: ${err.message}`));
    exitCode = err.exitCode || 1;
  } else {
    say();
    say(red(`Demo failed: ${err instanceof Error ? err.message : String(err)}`));
    exitCode = 1;
  }
} finally {
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch (err) {
      say(red(`cleanup: ${err instanceof Error ? err.message : String(err)}`));
      exitCode ||= 1;
    }
  }
  if (cleanups.length) say(dim(`${stopped.length ? `Stopped ${stopped.join(' and ')}; removed` : 'Removed'} the temp dirs.`));
}
process.exit(exitCode);

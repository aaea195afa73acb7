/**
 * Where a `--parallel` drill's time goes, in CPU time: `svc restore drill` of row 11's databases at
 * `--parallel 1` and `--parallel 2`, interleaved, each run under `perf record -e task-clock` over
 * the whole process tree (svc, its pg_ctl, the scratch postmaster and its backends, pg_restore,
 * psql). Prints, per variant, the median wall time and recovery times, the CPU time per command,
 * and the bound that CPU time puts on the speed-up on this machine's CPUs.
 *   node --import tsx bench/drill-cpu.mjs [--rounds 5] [--dbs 4] [--jobs N] [--no-analyze] [--keep-perf DIR] [--work-dir DIR]
 * (--keep-perf keeps each run's perf.data in DIR, for `perf report -i ... --sort comm,dso`).
 * Needs perf (linux-perf) and perf_event_paranoid <= 2 or root. Not part of `npm run bench`: its
 * figures are in docs/performance.md, "--parallel 2".
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { availableParallelism } from 'node:os';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { serverUser } from '../src/drill/os-user.ts';
import { writeBigOrgData } from '../test/support/big-org.ts';
import { cleanupAll, directEnv, onCleanup, median, NODE, requireBuilt, requireTools, ROOT, startHelper, SVC, tempDir } from './lib/common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = arg('--rounds', 5);
const DBS = ['db_orders', 'db_billing', 'db_bulk_0001', 'db_bulk_0002', 'db_bulk_0003', 'db_bulk_0004'].slice(0, arg('--dbs', 4));
/** One task-clock sample per ms of CPU; a large buffer, so that a loaded machine loses none (the run fails if it does). */
const PERIOD_NS = 1_000_000;

function loadavg() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** CPU ms per command name, and in all, from a perf.data file. */
function cpuByComm(data) {
  const r = spawnSync('perf', ['report', '-i', data, '--sort', 'comm', '--stdio', '-F', 'sample,comm', '--no-children'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`perf report: ${r.stderr}`);
  const lost = /Total Lost Samples: (\d+)/.exec(r.stdout);
  if (!lost || Number(lost[1]) > 0) throw new Error(`perf lost ${lost?.[1] ?? 'an unknown number of'} samples: the CPU times would be short`);
  const out = {};
  for (const line of r.stdout.split('\n')) {
    const m = /^\s+(\d+)\s+(\S.*?)\s*$/.exec(line);
    if (m) out[m[2]] = (out[m[2]] ?? 0) + (Number(m[1]) * PERIOD_NS) / 1e6;
  }
  return out;
}

/** How many processes of each command ran (that were sampled at least once). */
function processesByComm(data) {
  const r = spawnSync('perf', ['report', '-i', data, '--sort', 'comm,pid', '--stdio', '-F', 'comm,pid', '--no-children'], { encoding: 'utf8' });
  const out = {};
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\S+)\s+(\d+):/.exec(line);
    if (m) out[m[1]] = (out[m[1]] ?? 0) + 1;
  }
  return out;
}

async function main() {
  requireBuilt();
  requireTools(['perf']);
  const dir = tempDir('svc-bench-drill-cpu-');
  chmodSync(dir, 0o711);
  const user = serverUser();
  const home = join(dir, 'home');
  mkdirSync(home);
  // --work-dir puts the scratch clusters on another file system (a tmpfs, for the comparison in the docs).
  const where = process.argv.includes('--work-dir') ? process.argv[process.argv.indexOf('--work-dir') + 1] : undefined;
  const work = where ? mkdtempSync(join(where, 'svc-bench-drill-cpu-')) : join(dir, 'work');
  if (where) onCleanup(() => rmSync(work, { recursive: true, force: true }));
  else mkdirSync(work, { mode: 0o711 });
  chmodSync(work, 0o711);
  const baseEnv = directEnv(Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PG') && !k.startsWith('SVC_'))));
  writeBigOrgData(join(dir, 'org'), { databases: 3 + DBS.length - 2 });
  const { info: sb } = await startHelper(NODE, [SVC, 'sandbox', '--port', '0', '--data', join(dir, 'org'), '--json', '--quiet'], {
    label: 'svc sandbox',
    env: { ...baseEnv, HOME: home, XDG_CONFIG_HOME: home },
  });
  const token = sb.tokens.find((t) => t.name === 'drill').token;
  const env = { ...baseEnv, HOME: home, XDG_CONFIG_HOME: home, SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: token };

  /**
   * One drill under perf. Its stderr lines are stamped as they arrive: the first database's line
   * (its backup chosen) and the last verdict split the run into before the databases (node's start,
   * preflight, the scratch cluster's start), the databases, and after them (the cluster's stop, exit).
   */
  const keep = process.argv.includes('--keep-perf') ? process.argv[process.argv.indexOf('--keep-perf') + 1] : undefined;
  let perfRun = 0;
  const drill = async (dbs, args) => {
    const data = keep ? join(keep, `perf-${++perfRun}-${dbs.length}db${args.join('').replace(/[^a-z0-9]/gi, '')}.data`) : join(dir, 'perf.data');
    const started = performance.now();
    const child = spawn(
      'perf',
      [
        'record',
        '-q',
        '-m',
        '1024',
        '-e',
        'task-clock',
        '-c',
        String(PERIOD_NS),
        '-o',
        data,
        '--',
        NODE,
        SVC,
        'restore',
        'drill',
        ...dbs,
        '--work-dir',
        work,
        '--json',
        ...args,
      ],
      {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // On Ctrl-C the drill cleans up its own cluster first; the temp dirs go after it has exited.
    const exited = once(child, 'exit');
    onCleanup(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    });
    let stdout = '';
    let stderr = '';
    const lines = [];
    child.stdout.on('data', (c) => (stdout += c));
    createInterface({ input: child.stderr }).on('line', (line) => {
      lines.push({ at: performance.now() - started, line });
      stderr += `${line}\n`;
    });
    const [code] = await exited;
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`drill ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`);
    const doc = JSON.parse(stdout).drill;
    if (doc.failed !== 0) throw new Error(`drill failed: ${stdout.slice(0, 2000)}`);
    if (readdirSync(work).length) throw new Error(`the drill left ${readdirSync(work)} in ${work}`);
    const ofDb = lines.filter((l) => dbs.some((id) => l.line.includes(id)));
    const selecting = Math.max(...doc.databases.map((d) => d.checks.find((c) => c.name === 'backup_selected')?.durationMs ?? 0));
    const first = ofDb.length ? ofDb[0].at - selecting : NaN;
    const last = ofDb.filter((l) => /passed: recovery time/.test(l.line)).at(-1)?.at ?? NaN;
    const cpu = cpuByComm(data);
    const procs = processesByComm(data);
    if (!keep) rmSync(data, { force: true });
    return { ms, doc, cpu, procs, before: first, databases: last - first, after: ms - last };
  };

  const extra = process.argv.includes('--no-analyze') ? ['--no-analyze'] : [];
  const jobs = arg('--jobs', 0) ? ['--jobs', String(arg('--jobs', 0))] : [];
  const variants = {
    [`${DBS[0]} alone, --parallel 1`]: { dbs: DBS.slice(0, 1), args: ['--parallel', '1', ...extra, ...jobs] },
    [`${DBS.length} databases, --parallel 1`]: { dbs: DBS, args: ['--parallel', '1', ...extra, ...jobs] },
    [`${DBS.length} databases, --parallel 2`]: { dbs: DBS, args: ['--parallel', '2', ...extra, ...jobs] },
  };
  const names = Object.keys(variants);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  process.stderr.write(`drill-cpu: ${DBS.join(', ')}; ${availableParallelism()} CPUs; load ${loadavg()}; ${ROUNDS} rounds\n`);
  await drill(DBS, ['--parallel', '1']); // warm-up: the initdb template, the page cache
  for (let i = 0; i < ROUNDS; i++) {
    for (const n of i % 2 ? [...names].reverse() : names) {
      const run = await drill(variants[n].dbs, variants[n].args);
      runs[n].push(run);
      const total = Object.values(run.cpu).reduce((a, b) => a + b, 0);
      process.stderr.write(
        `  ${n}: wall ${run.ms.toFixed(0)} ms, CPU ${total.toFixed(0)} ms (before/databases/after ${[run.before, run.databases, run.after].map((x) => x.toFixed(0)).join('/')} ms), load ${loadavg()}\n`,
      );
    }
  }

  const out = {};
  for (const n of names) {
    const list = runs[n];
    const comms = [...new Set(list.flatMap((r) => Object.keys(r.cpu)))];
    const cpu = comms.map((c) => [c, median(list.map((r) => r.cpu[c] ?? 0)), median(list.map((r) => r.procs[c] ?? 0))]).sort((a, b) => b[1] - a[1]);
    const dbs = list.flatMap((r) => r.doc.databases);
    const phases = [...new Set(dbs.flatMap((d) => Object.keys(d.phases)))];
    out[n] = {
      wallMs: Math.round(median(list.map((r) => r.ms))),
      cpuMs: Math.round(median(list.map((r) => Object.values(r.cpu).reduce((a, b) => a + b, 0)))),
      cpuMsAndProcessesPerCommand: Object.fromEntries(cpu.filter(([, ms]) => ms >= 1).map(([c, ms, k]) => [c, `${Math.round(ms)} ms, ${k} processes`])),
      recoveryPerDbMs: Math.round(median(dbs.map((d) => d.recoveryTimeMs))),
      recoverySumMs: Math.round(median(list.map((r) => r.doc.databases.reduce((a, d) => a + d.recoveryTimeMs, 0)))),
      drillSpanMs: Math.round(median(list.map((r) => Date.parse(r.doc.finishedAt) - Date.parse(r.doc.startedAt)))),
      beforeDatabasesMs: Math.round(median(list.map((r) => r.before))),
      databasesMs: Math.round(median(list.map((r) => r.databases))),
      afterDatabasesMs: Math.round(median(list.map((r) => r.after))),
      phasesPerDbMs: Object.fromEntries(phases.map((ph) => [ph, Math.round(median(dbs.map((d) => d.phases[ph] ?? 0)))])),
    };
  }
  const [one, serial, parallel] = names.map((n) => out[n]);
  // A run of n databases one at a time is S + n * p: S the part --parallel cannot split (node's start,
  // preflight, the scratch cluster's start and stop, exit), p one database.
  const n = DBS.length;
  const fit = (key) => {
    const p = (serial[key] - one[key]) / (n - 1);
    return { perDatabase: Math.round(p), fixed: Math.round(one[key] - p) };
  };
  const wall = fit('wallMs');
  const cpu = fit('cpuMs');
  out.model = {
    wallMs: wall,
    cpuMs: cpu,
    // Amdahl: the fixed part stays, the databases' part at best halves.
    amdahlBoundAtParallel2: Number(((wall.fixed + n * wall.perDatabase) / (wall.fixed + (n / 2) * wall.perDatabase)).toFixed(2)),
    // Two CPUs: --parallel 2 needs at least its CPU time / 2 of wall time, on an otherwise idle machine.
    cpuBoundAtParallel2: Number((serial.wallMs / Math.max(parallel.cpuMs / availableParallelism(), wall.fixed + (n / 2) * wall.perDatabase)).toFixed(2)),
    measuredSpeedUp: Number((serial.wallMs / parallel.wallMs).toFixed(2)),
  };
  out.load = loadavg();
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

try {
  await main();
} finally {
  await cleanupAll();
}

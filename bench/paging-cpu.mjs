/**
 * Rows 6b and 6c: the CPU (user + sys, GNU time) of `svc databases list --all --json` over many
 * small pages (10 databases each) and over pages of 2 MiB (6,000 databases), against plain node
 * fetching the same pages on one connection, parsing them and printing their items
 * (bench/lib/pages-floor.mjs). Everything svc does on top (validation of every item, the secret
 * scrubbing, retries and pacing, the request's timeout) is the ratio. Interleaved rounds; medians.
 */
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { directEnv, GNU_TIME, median, NODE, ROOT, rounds, startServers, SVC, tempDir, timed } from './lib/common.mjs';
import { timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';
import { startupEnv } from './startup.mjs';

/** CPU ms (user + sys) of one run, measured by GNU time. */
function cpuMs(cmd, args, opts) {
  const dir = tempDir('svc-bench-cpu-');
  const out = join(dir, 'cpu');
  timed(GNU_TIME, ['-f', '%U %S', '-o', out, cmd, ...args], opts);
  const [user, sys] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  rmSync(dir, { recursive: true, force: true });
  return (user + sys) * 1000;
}

const fmtCpu = (ms) => `${(ms / 1000).toFixed(2)} CPU-s`;

async function pagingRow({ pages, pageSize, label, maxRatio, n, log }) {
  const home = tempDir();
  const servers = await startServers(home, { pages, pageSize });
  const env = directEnv(startupEnv(home, { SVC_BASE_URL: servers.base, SVC_API_KEY: 'svc_bench_token' }));
  const svcArgs = [SVC, 'databases', 'list', '--all', '--json'];
  const floorArgs = [join(ROOT, 'bench/lib/pages-floor.mjs'), servers.base];
  const merged = JSON.parse(timed(NODE, svcArgs, { env }).stdout);
  if (merged.databases?.length !== pages * pageSize) throw new Error(`svc --all printed ${merged.databases?.length} databases, expected ${pages * pageSize}`);
  log(`paging-cpu: ${n} interleaved rounds of svc databases list --all --json and node over ${pages} pages of ${pageSize}`);
  const t = rounds(n, { svc: () => cpuMs(NODE, svcArgs, { env }), node: () => cpuMs(NODE, floorArgs, { env }) }, { warmup: 1 });
  const perPage = (ms) => (ms / pages >= 1 ? `${(ms / pages).toFixed(1)} ms` : `${((ms * 1000) / pages).toFixed(0)} µs`);
  return timeRow(
    `databases list --all --json, ${label} (CPU)`,
    median(t.svc),
    median(t.node),
    maxRatio,
    fmtCpu,
    `baseline node: the same ${pages} pages on one connection, JSON.parse, items printed pretty (bench/lib/pages-floor.mjs); ` +
      `CPU per page, start-up included: svc ${perPage(median(t.svc))}, node ${perPage(median(t.node))}; ${n} runs`,
  );
}

export async function run({ quick, log }) {
  if (!GNU_TIME) throw new Error('GNU time is missing (apt-get install -y time)');
  const n = quick ? 3 : 7;
  return [
    await pagingRow({ pages: quick ? 1000 : 3000, pageSize: 10, label: `${quick ? '1,000' : '3,000'} pages of 10`, maxRatio: 2.5, n, log }),
    await pagingRow({ pages: quick ? 10 : 30, pageSize: 6000, label: `${quick ? 10 : 30} pages of 2 MiB`, maxRatio: 2.5, n, log }),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

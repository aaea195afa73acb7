/**
 * Row 2: `svc databases list --json` (one page, 20 databases) against the bench's loopback list
 * server, wall time against `node -e 0`. Interleaved rounds; medians.
 */
import { fileURLToPath } from 'node:url';
import { fmtMs, median, NODE, rounds, startServers, SVC, tempDir, timed } from './lib/common.mjs';
import { timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

export async function run({ quick, log }) {
  const home = tempDir();
  const servers = await startServers(home, { pages: 1, pageSize: 20 });
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: '1', SVC_BASE_URL: servers.base, SVC_API_KEY: 'svc_bench_token' };
  const n = quick ? 10 : 30;
  log(`list: ${n} interleaved rounds of node -e 0 and svc databases list --json`);
  const out = JSON.parse(timed(NODE, [SVC, 'databases', 'list', '--json'], { env }).stdout);
  if (out.databases?.length !== 20) throw new Error('svc databases list --json did not print the 20 databases of the page');
  const t = rounds(n, {
    node: () => timed(NODE, ['-e', '0'], { env }).ms,
    list: () => timed(NODE, [SVC, 'databases', 'list', '--json'], { env }).ms,
  }, { warmup: 2 });
  return [timeRow('svc databases list --json (wall)', median(t.list), median(t.node), 2.0, fmtMs, `baseline node -e 0; loopback node:http server, 20 items; ${n} runs`)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

/**
 * Row 2, under each Node line (as row 1): `svc databases list --json` (one page, 20 databases)
 * against the bench's loopback list server, wall time against `node -e 0` of the same node binary.
 * NODE_EXTRA_CA_CERTS unset on both sides, as in row 1. Interleaved rounds; medians.
 */
import { fileURLToPath } from 'node:url';
import { directEnv, fmtMs, median, requireBuilt, rounds, startServers, SVC, tempDir, timed } from './lib/common.mjs';
import { benchNodeLines } from './lib/node-lines.mjs';
import { notRunRow, timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';
import { CA_NOTE, startupEnv } from './startup.mjs';

export async function run({ quick, log }) {
  requireBuilt();
  const home = tempDir();
  const servers = await startServers(home, { pages: 1, pageSize: 20 });
  const env = directEnv(startupEnv(home, { SVC_BASE_URL: servers.base, SVC_API_KEY: 'svc_bench_token' }));
  const n = quick ? 10 : 30;
  const rows = [];
  for (const line of benchNodeLines(log)) {
    const tag = `node ${line.version}`;
    const what = `svc databases list --json (wall, ${tag})`;
    if (line.error) {
      rows.push(notRunRow(what, `Node ${line.version} not available: ${line.error}`));
      continue;
    }
    log(`list: ${tag}: ${n} interleaved rounds of node -e 0 and svc databases list --json; ${CA_NOTE}`);
    const out = JSON.parse(timed(line.bin, [SVC, 'databases', 'list', '--json'], { env }).stdout);
    if (out.databases?.length !== 20) throw new Error(`svc databases list --json (${tag}) did not print the 20 databases of the page`);
    const t = rounds(n, {
      node: () => timed(line.bin, ['-e', '0'], { env }).ms,
      list: () => timed(line.bin, [SVC, 'databases', 'list', '--json'], { env }).ms,
    }, { warmup: 2 });
    rows.push(timeRow(what, median(t.list), median(t.node), 2.0, fmtMs, `baseline node -e 0 (${tag}); loopback node:http server, 20 items; ${CA_NOTE}; ${n} runs`));
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

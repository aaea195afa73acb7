/**
 * Row 6: `svc databases list --all --json` over 100 pages (20 databases each) against curl fetching
 * the same 100 URLs on one keep-alive connection (several URLs on one curl command line share a
 * connection). The server counts TCP connections, so a client that opened more than one fails the
 * row. Interleaved rounds; medians. The server answers from memory with no artificial latency, so
 * the row is the worst case for svc: node's start-up and the per-page validation are all there is.
 */
import { fileURLToPath } from 'node:url';
import { directEnv, fmtMs, median, NODE, requireTools, rounds, startServers, SVC, tempDir, timed } from './lib/common.mjs';
import { timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';
import { CA_NOTE, startupEnv } from './startup.mjs';

const PAGES = 100;

export async function run({ quick, log }) {
  requireTools(['curl']);
  const home = tempDir();
  const servers = await startServers(home, { pages: PAGES, pageSize: 20 });
  // As the start-up rows: NODE_EXTRA_CA_CERTS unset, or every svc start would pay for parsing it and curl not.
  const env = directEnv(startupEnv(home, { SVC_BASE_URL: servers.base, SVC_API_KEY: 'svc_bench_token' }));
  const urls = Array.from({ length: PAGES }, (_, i) => `${servers.base}/api/v1/databases${i ? `?cursor=page_${i}` : ''}`);
  const curlArgs = ['-sS', '--fail', '-H', 'authorization: Bearer svc_bench_token', '-H', 'accept: application/json', ...urls];
  const svcArgs = [SVC, 'databases', 'list', '--all', '--json'];

  // Correctness and one-connection checks, outside the timed runs.
  const before = await servers.connections();
  const merged = JSON.parse(timed(NODE, svcArgs, { env }).stdout);
  const svcConnections = (await servers.connections()) - before - 1;
  if (merged.databases?.length !== PAGES * 20) throw new Error(`svc --all printed ${merged.databases?.length} databases, expected ${PAGES * 20}`);
  const before2 = await servers.connections();
  timed('curl', curlArgs, { env });
  const curlConnections = (await servers.connections()) - before2 - 1;
  if (svcConnections !== 1 || curlConnections !== 1) {
    throw new Error(`expected one connection each for ${PAGES} pages: svc used ${svcConnections}, curl ${curlConnections}`);
  }

  const n = quick ? 8 : 25;
  log(`paging: ${n} interleaved rounds of svc databases list --all --json and curl over ${PAGES} pages`);
  const t = rounds(
    n,
    {
      curl: () => timed('curl', curlArgs, { env }).ms,
      svc: () => timed(NODE, svcArgs, { env }).ms,
      // One page each, to split fixed start-up from the per-page cost.
      curl1: () => timed('curl', curlArgs.slice(0, curlArgs.length - PAGES + 1), { env }).ms,
      svc1: () =>
        timed(
          NODE,
          svcArgs.filter((a) => a !== '--all'),
          { env },
        ).ms,
      node: () => timed(NODE, ['-e', '0'], { env }).ms,
    },
    { warmup: 1 },
  );
  const perPage = (all, one) => (median(all) - median(one)) / (PAGES - 1);
  return [
    timeRow(
      `databases list --all, ${PAGES} pages (wall)`,
      median(t.svc),
      median(t.curl),
      1.5,
      fmtMs,
      `baseline curl, same ${PAGES} URLs (20 items each), one connection each (checked); ${CA_NOTE}; ${n} runs. ` +
        `Per extra page: svc ${perPage(t.svc, t.svc1).toFixed(2)} ms, curl ${perPage(t.curl, t.curl1).toFixed(2)} ms; ` +
        `one page: svc ${fmtMs(median(t.svc1))}, curl ${fmtMs(median(t.curl1))}; node -e 0 alone ${fmtMs(median(t.node))}`,
    ),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

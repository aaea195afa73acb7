/**
 * Row 2, under each Node line (as row 1): `svc databases list --json` against `svc sandbox` (the
 * built CLI, started once, on loopback), wall time against `node -e 0` of the same node binary.
 * The targets: 3x on Node 20 (no compile cache for ES modules), 2.5x on 22 and 24 (their compile cache,
 * turned on by bin/svc); on every line svc keeps the V8 code cache of undici's file itself (src/code-cache.ts).
 * Both sides share one XDG_CACHE_HOME, warmed by the check run before the rounds. NODE_EXTRA_CA_CERTS unset on both sides, as in row 1. Interleaved rounds; medians.
 */
import { fileURLToPath } from 'node:url';
import { directEnv, fmtMs, median, NODE, requireBuilt, rounds, startHelper, SVC, tempDir, timed } from './lib/common.mjs';
import { benchNodeLines } from './lib/node-lines.mjs';
import { notRunRow, timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';
import { CA_NOTE, startupEnv } from './startup.mjs';

/** Node 20 has no module.enableCompileCache: the target allows for the ES modules it parses on each start. */
export const listTarget = (version) => (Number(version.split('.')[0]) < 22 ? 3.0 : 2.5);

export async function run({ quick, log }) {
  requireBuilt();
  const home = tempDir();
  log('list: starting svc sandbox (loopback)');
  const { info: sandbox } = await startHelper(NODE, [SVC, 'sandbox', '--port', '0', '--json', '--quiet'], {
    label: 'svc sandbox',
    env: startupEnv(tempDir()),
  });
  const token = sandbox.tokens.find((t) => t.name === 'full').token;
  const env = directEnv(startupEnv(home, { SVC_BASE_URL: sandbox.baseUrl, SVC_API_KEY: token }));
  const n = quick ? 10 : 30;
  const rows = [];
  for (const line of benchNodeLines(log)) {
    const tag = `node ${line.version}`;
    const what = `svc databases list --json (wall, ${tag})`;
    if (line.error) {
      rows.push(notRunRow(what, `Node ${line.version} not available: ${line.error}`));
      continue;
    }
    log(`list: ${tag}: ${n} interleaved rounds of node -e 0 and svc databases list --json against the sandbox; ${CA_NOTE}`);
    const out = JSON.parse(timed(line.bin, [SVC, 'databases', 'list', '--json'], { env }).stdout);
    if (!out.databases?.length) throw new Error(`svc databases list --json (${tag}) printed no databases`);
    const t = rounds(
      n,
      {
        node: () => timed(line.bin, ['-e', '0'], { env }).ms,
        list: () => timed(line.bin, [SVC, 'databases', 'list', '--json'], { env }).ms,
      },
      { warmup: 2 },
    );
    rows.push(
      timeRow(
        what,
        median(t.list),
        median(t.node),
        listTarget(line.version),
        fmtMs,
        `baseline node -e 0 (${tag}); svc sandbox on loopback, ${out.databases.length} databases; ${CA_NOTE}; ${n} runs`,
      ),
    );
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

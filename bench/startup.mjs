/**
 * Row 1: `svc --version` and `svc --help` wall time against `node -e 0` (bare node start-up), both
 * with stdout on a pipe. Interleaved rounds; medians.
 */
import { fileURLToPath } from 'node:url';
import { fmtMs, median, NODE, rounds, SVC, tempDir, timed } from './lib/common.mjs';
import { timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

export async function run({ quick, log }) {
  const home = tempDir();
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: '1' };
  const n = quick ? 10 : 40;
  log(`startup: ${n} interleaved rounds of node -e 0, svc --version, svc --help`);
  const t = rounds(n, {
    node: () => timed(NODE, ['-e', '0'], { env }).ms,
    version: () => timed(NODE, [SVC, '--version'], { env }).ms,
    help: () => timed(NODE, [SVC, '--help'], { env }).ms,
  }, { warmup: 2 });
  const base = median(t.node);
  return [
    timeRow('svc --version (wall)', median(t.version), base, 1.3, fmtMs, `baseline node -e 0; ${n} runs`),
    timeRow('svc --help (wall)', median(t.help), base, 1.3, fmtMs, `baseline node -e 0; ${n} runs`),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

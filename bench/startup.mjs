/**
 * Row 1: `svc --version` and `svc --help` wall time against `node -e 0` (bare node start-up), both
 * with stdout on a pipe. Interleaved rounds; medians. Both sides run with NODE_EXTRA_CA_CERTS unset:
 * where it is set, node parses that CA file at every start (~30 ms for a system bundle), a fixed cost
 * that says nothing about svc.
 */
import { fileURLToPath } from 'node:url';
import { fmtMs, median, NODE, rounds, SVC, tempDir, timed } from './lib/common.mjs';
import { timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

export async function run({ quick, log }) {
  const home = tempDir();
  const { NODE_EXTRA_CA_CERTS: extraCaCerts, ...inherited } = process.env;
  const env = { ...inherited, HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: '1' };
  const n = quick ? 10 : 40;
  const caNote = `NODE_EXTRA_CA_CERTS unset for svc and node -e 0 alike${extraCaCerts ? ' (this environment sets it)' : ''}`;
  log(`startup: ${n} interleaved rounds of node -e 0, svc --version, svc --help; ${caNote}`);
  const t = rounds(n, {
    node: () => timed(NODE, ['-e', '0'], { env }).ms,
    version: () => timed(NODE, [SVC, '--version'], { env }).ms,
    help: () => timed(NODE, [SVC, '--help'], { env }).ms,
  }, { warmup: 2 });
  const base = median(t.node);
  const note = `baseline node -e 0; ${caNote}; ${n} runs`;
  return [
    timeRow('svc --version (wall, no NODE_EXTRA_CA_CERTS)', median(t.version), base, 1.3, fmtMs, note),
    timeRow('svc --help (wall, no NODE_EXTRA_CA_CERTS)', median(t.help), base, 1.3, fmtMs, note),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

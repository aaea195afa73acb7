/**
 * Row 1, under each Node line (bench/lib/node-lines.mjs: this node, and 22 and 24 from
 * .cache/node-lines): `svc --version` and `svc --help` wall time against `node -e 0` of the same
 * node binary (bare node start-up), both with stdout on a pipe. Interleaved rounds; medians.
 * A Tab press (`svc complete -- databases ''`, what the shell scripts run) against `svc --help`:
 * completing must start as fast as help does.
 * Both sides run with NODE_EXTRA_CA_CERTS unset: where it is set, node parses that CA file at every
 * start (~35 ms for a system bundle), a fixed cost that says nothing about svc. Where this
 * environment sets it, `node -e 0` with it set is timed too, for the note. A Node line that is not
 * available gives rows marked as not run, with the reason.
 */
import { fileURLToPath } from 'node:url';
import { fmtMs, median, requireBuilt, rounds, SVC, tempDir, timed } from './lib/common.mjs';
import { benchNodeLines } from './lib/node-lines.mjs';
import { notRunRow, timeRow } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

/** The environment of every start-up row: NODE_EXTRA_CA_CERTS removed, a private HOME. */
export function startupEnv(home, extra = {}) {
  const { NODE_EXTRA_CA_CERTS: _unset, ...inherited } = process.env;
  return { ...inherited, HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: '1', ...extra };
}

/** Node 20 compiles the start chunk (commander and the command tree) on every run; 22 and later keep it compiled. */
export const helpTarget = (version) => (Number(version.split('.')[0]) < 22 ? 1.6 : 1.5);

export const CA_SET = Boolean(process.env.NODE_EXTRA_CA_CERTS);
export const CA_NOTE = `NODE_EXTRA_CA_CERTS unset for svc and node -e 0 alike${CA_SET ? ' (this environment sets it)' : ''}`;

export async function run({ quick, log }) {
  requireBuilt();
  const home = tempDir();
  const env = startupEnv(home);
  const n = quick ? 10 : 40;
  const rows = [];
  for (const line of benchNodeLines(log)) {
    const tag = `node ${line.version}`;
    if (line.error) {
      for (const what of ['svc --version', 'svc --help', 'Tab after svc databases'])
        rows.push(notRunRow(`${what} (wall, ${tag})`, `Node ${line.version} not available: ${line.error}`));
      continue;
    }
    log(`startup: ${tag}: ${n} interleaved rounds of node -e 0, svc --version, svc --help, a Tab press; ${CA_NOTE}`);
    const variants = {
      node: () => timed(line.bin, ['-e', '0'], { env }).ms,
      version: () => timed(line.bin, [SVC, '--version'], { env }).ms,
      help: () => timed(line.bin, [SVC, '--help'], { env }).ms,
      tab: () => timed(line.bin, [SVC, 'complete', '--', 'databases', ''], { env }).ms,
    };
    // What the unset variable saves, measured once (on this node), for the note.
    const withCa = CA_SET && line.bin === process.execPath;
    if (withCa) variants.nodeCa = () => timed(line.bin, ['-e', '0'], { env: { ...env, NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } }).ms;
    const t = rounds(n, variants, { warmup: 2 });
    const base = median(t.node);
    const note =
      `baseline node -e 0 (${tag}); ${CA_NOTE}; ${n} runs` +
      (withCa ? `. node -e 0 with NODE_EXTRA_CA_CERTS set: ${fmtMs(median(t.nodeCa))} (+${fmtMs(median(t.nodeCa) - base)} per start)` : '');
    rows.push(timeRow(`svc --version (wall, ${tag})`, median(t.version), base, 1.3, fmtMs, note));
    rows.push(timeRow(`svc --help (wall, ${tag})`, median(t.help), base, helpTarget(line.version), fmtMs, note));
    rows.push(
      timeRow(
        `Tab after svc databases (wall, ${tag})`,
        median(t.tab),
        median(t.help),
        1.1,
        fmtMs,
        `baseline svc --help (${tag}); NODE_EXTRA_CA_CERTS unset for both; ${n} runs`,
      ),
    );
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

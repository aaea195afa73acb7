/**
 * The Node lines the start-up rows run under: this node (process.execPath) and the pinned lines of
 * tools/node-lines.mjs (22, 24) from .cache/node-lines. Missing ones are fetched once by running
 * that tool (npm pack; it needs the npm registry); a line that still is not there comes back with
 * the reason, and its rows are printed as not run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_LINES } from '../../tools/node-lines.mjs';
import { NODE, ROOT } from './common.mjs';

const FETCH_TIMEOUT_MS = 180_000;
let cached;

/** [{ version, bin } | { version, error }], this node first. */
export function benchNodeLines(log = () => {}) {
  if (cached) return cached;
  const bin = (version) => join(ROOT, '.cache', 'node-lines', version, 'bin', 'node');
  let fetchError;
  const missing = NODE_LINES.filter((v) => !existsSync(bin(v)));
  if (missing.length) {
    log(`node lines: ${missing.join(', ')} not in .cache/node-lines; fetching with tools/node-lines.mjs`);
    const r = spawnSync(NODE, [join(ROOT, 'tools', 'node-lines.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: FETCH_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.error || r.status !== 0) {
      const why =
        r.error?.code === 'ETIMEDOUT'
          ? `timed out after ${FETCH_TIMEOUT_MS / 1000} s`
          : (String(r.stderr).trim().split('\n').filter(Boolean).pop() ?? `exit ${r.status}`);
      fetchError = `tools/node-lines.mjs could not fetch it: ${why.slice(0, 200)}`;
    }
  }
  cached = [
    { version: process.versions.node, bin: NODE },
    ...NODE_LINES.map((version) => (existsSync(bin(version)) ? { version, bin: bin(version) } : { version, error: fetchError ?? 'not in .cache/node-lines' })),
  ];
  return cached;
}

#!/usr/bin/env node
/**
 * The double Ctrl-C race at length (issue 22, item 4): runs test/restore/signals-double.test.ts with
 * many more tries than the test suite does (default 200; `node scripts/double-signal.mjs 500`).
 * Each try: the built CLI restoring into a real cluster, SIGINT during the download, a second SIGINT
 * 0-50 ms later; no svc-pgpass-* may be left in TMPDIR and nothing in the work dir.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 200);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: node scripts/double-signal.mjs [tries]');
  process.exit(2);
}
const r = spawnSync('npx', ['vitest', 'run', 'test/restore/signals-double.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, SVC_DOUBLE_SIGNAL_RUNS: String(runs) },
});
process.exit(r.status ?? 1);

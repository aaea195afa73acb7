/**
 * Rewrites test/support/test-durations.json, the seconds each slow test file took, from a vitest
 * JSON report (`npx vitest run --reporter=json --outputFile=/tmp/run.json`):
 *   node tools/test-durations.mjs /tmp/run.json
 * The sequencer (test/support/duration-sequencer.ts) starts these files first on a clean clone,
 * where vitest has no results cache and would start the small but slow files last.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** Files quicker than this keep vitest's own order. */
const MIN_SECONDS = 5;

const [reportFile] = process.argv.slice(2);
if (!reportFile) {
  process.stderr.write('usage: node tools/test-durations.mjs <vitest-json-report>\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
// The report names files by their absolute path, maybe in another checkout; the table keys them from test/ on.
const rows = report.testResults
  .map((file) => [/(?:^|\/)(test\/.+)$/.exec(file.name)?.[1] ?? file.name, Math.round((file.endTime - file.startTime) / 100) / 10])
  .filter(([, seconds]) => seconds >= MIN_SECONDS)
  .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
const table = Object.fromEntries(rows);
writeFileSync(new URL('../test/support/test-durations.json', import.meta.url), `${JSON.stringify(table, null, 2)}\n`);
process.stdout.write(`test/support/test-durations.json: ${rows.length} files of ${MIN_SECONDS} s or more\n`);

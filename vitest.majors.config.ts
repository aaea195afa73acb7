/**
 * `.ci/run`'s PostgreSQL server majors in one vitest run: one project per major, each running the
 * restore tests and a drill of PG_MAJOR_TESTS with SVC_TEST_PG_BINDIR set to that major's server
 * binaries. One run packs the files of every major onto the workers (a run per major waited for its
 * slowest file each time, with a core idle). SVC_TEST_PG_MAJORS holds `<major> <bindir>` lines, as
 * `node tools/pg-majors.mjs` prints them.
 */
import { defineConfig } from 'vitest/config';
import { project, runOptions } from './vitest.config.js';

/** A test file added here runs against every major. */
export const PG_MAJOR_TESTS = [
  'test/restore/new-database.test.ts',
  'test/restore/in-place.test.ts',
  'test/restore/database-fidelity.test.ts',
  'test/restore/fidelity.test.ts',
  'test/drill/drill-major.test.ts',
];

const majors = (process.env.SVC_TEST_PG_MAJORS ?? '')
  .split('\n')
  .map((line) => line.trim().split(/\s+/))
  .filter((fields): fields is [string, string] => fields.length === 2);
if (!majors.length) throw new Error('vitest.majors.config.ts: set SVC_TEST_PG_MAJORS to the output of `node tools/pg-majors.mjs`.');

export default defineConfig({
  test: {
    projects: majors.map(([major, bindir]) => project({ name: `pg${major}`, include: PG_MAJOR_TESTS, pool: 'forks', env: { SVC_TEST_PG_BINDIR: bindir } })),
    ...runOptions,
  },
});

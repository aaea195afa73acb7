import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { DurationSequencer } from './test/support/duration-sequencer.js';

/*
 * The machine's NODE_EXTRA_CA_CERTS stays out of the test run: no test reaches the network, and Node
 * reads and parses that file at every start, in every worker and every built CLI a test spawns
 * (/etc/ssl/certs/ca-certificates.crt on this machine, 144 certificates: 36 ms of CPU per start
 * against 17 ms for `svc --version` without it, over some 1,300 processes a run). The workers are
 * forked after this runs. A test that needs a private CA (test/api/tls.test.ts) sets its own.
 */
delete process.env.NODE_EXTRA_CA_CERTS;

/** The shell completion scripts (src/commands/completion/shells/) are imported as their text, as the bundle's esbuild text loader does. */
const completionScriptsAsText = {
  name: 'completion-scripts-as-text',
  transform(code: string, id: string) {
    return /\.(?:bash|zsh|fish|ps1)$/.test(id) ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};

/**
 * Test files that run in a worker of their own (isolate: true). Every other file shares its worker
 * with the files before it (isolate: false): vitest's worker start and the evaluation of src/ and the
 * test helpers are paid once per worker instead of once per file (117 files measured apart: 0.47 CPU-s
 * less per file). A file that shares must leave nothing process-wide behind: no server, child,
 * environment variable, mock, fake timer or listener (afterAll/afterEach put back what it changed);
 * its PostgreSQL cluster is the worker slot's (test/support/worker-cluster.ts), handed to the next
 * file as a fresh one. A file that cannot is listed here, with why.
 */
const OWN_WORKER_FILES = [
  // Counts the threads of its process: another file's worker threads (jq, the hash) would be counted too.
  'test/restore/download-ranged-faults.test.ts',
  // Read a last-success time 30 minutes old through Prometheus once, in a worker other files had used.
  'test/drill/drill-metrics.test.ts',
];

/** Shared by every project (vitest.majors.config.ts's too): the root config's test options are not inherited by its projects. */
export const project = (test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration => ({
  plugins: [completionScriptsAsText],
  test: {
    // Room for test files running side by side on a loaded machine: a drill reaching a gate can take 20 s and more.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    ...test,
  },
});

/** The run's own options, beside its projects (vitest.majors.config.ts runs with them too). */
export const runOptions = {
  // The run's initdb'd data dir and one PostgreSQL cluster per worker slot (test/support/worker-cluster.ts).
  globalSetup: ['test/support/pg-run-setup.ts'],
  // The slow files first, though a clean clone has no durations in vitest's cache.
  sequence: { sequencer: DurationSequencer },
  /*
   * Two test files per core. vitest's default (cores - 1) is one worker on a 2-core machine, yet
   * most test time is waiting on PostgreSQL, child processes and timers, not the CPU. Every file
   * already brings its own cluster, ports, temp dirs and HOME, and the bundle build takes a lock.
   */
  maxWorkers: Math.max(2, availableParallelism() * 2),
};

export default defineConfig({
  test: {
    projects: [
      project({ name: 'isolated', include: OWN_WORKER_FILES, pool: 'forks' }),
      project({ name: 'shared', include: ['test/**/*.test.ts'], exclude: OWN_WORKER_FILES, pool: 'forks', isolate: false }),
    ],
    ...runOptions,
  },
});

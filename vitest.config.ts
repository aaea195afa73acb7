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
 * Test files that share their worker with other files (isolate: false), so that src/ and the test
 * helpers are evaluated once per worker instead of once per file. They start no PostgreSQL cluster,
 * built CLI or terminal, leave no server, environment variable, mock or timer behind, and passed
 * together in several orders. A file not listed here runs in a worker of its own, as a new file does.
 * test/restore/download-ranged-faults.test.ts stays there: it counts the threads of its process.
 */
const SHARED_WORKER_FILES = [
  'test/api/connection.test.ts',
  'test/api/idempotency-key-header.test.ts',
  'test/api/idempotency.test.ts',
  'test/api/operation-table.test.ts',
  'test/api/pacing.test.ts',
  'test/api/refused-not-network.test.ts',
  'test/api/retries.test.ts',
  'test/api/undici-core.test.ts',
  'test/auth/auth.test.ts',
  'test/cli/bare-help.test.ts',
  'test/cli/errors.test.ts',
  'test/cli/global-options.test.ts',
  'test/cli/hints.test.ts',
  'test/commands/api/api.test.ts',
  'test/commands/api/options.test.ts',
  'test/commands/auth/argv-token.test.ts',
  'test/commands/auth/options.test.ts',
  'test/commands/backups/backups.test.ts',
  'test/commands/backups/options.test.ts',
  'test/commands/backups/trigger.test.ts',
  'test/commands/completion/completion.test.ts',
  'test/commands/completion/options.test.ts',
  'test/commands/database-name.test.ts',
  'test/commands/databases/databases.test.ts',
  'test/commands/databases/options.test.ts',
  'test/commands/destinations/destinations.test.ts',
  'test/commands/destinations/options.test.ts',
  'test/commands/evidence/evidence.test.ts',
  'test/commands/evidence/options.test.ts',
  'test/commands/mcp/config.test.ts',
  'test/commands/mcp/options.test.ts',
  'test/commands/profile/options.test.ts',
  'test/commands/profile/profile.test.ts',
  'test/commands/recovery/options.test.ts',
  'test/commands/recovery/recovery.test.ts',
  'test/commands/restore/get.test.ts',
  'test/commands/restore/help.test.ts',
  'test/commands/restore/options.test.ts',
  'test/commands/restore/preflight.test.ts',
  'test/commands/sandbox/options.test.ts',
  'test/commands/sandbox/sandbox.test.ts',
  'test/commands/tools/options.test.ts',
  'test/commands/tools/tools.test.ts',
  'test/core/import-graph.test.ts',
  'test/drill/drift.test.ts',
  'test/drill/drill-checks.test.ts',
  'test/drill/duration.test.ts',
  'test/drill/metrics.test.ts',
  'test/drill/shard.test.ts',
  'test/drill/sql-checks.test.ts',
  'test/mcp/plan-output.test.ts',
  'test/mcp/results.test.ts',
  'test/mcp/select.test.ts',
  'test/output/error-output.test.ts',
  'test/output/fit.test.ts',
  'test/output/fitted-json.test.ts',
  'test/output/jq-commands.test.ts',
  'test/output/jq.test.ts',
  'test/output/merged-document.test.ts',
  'test/output/scrubbing-stream.test.ts',
  'test/output/terminal-text.test.ts',
  'test/output/terminal-width.test.ts',
  'test/output/user-file.test.ts',
  'test/output/writer-jq.test.ts',
  'test/pg/bounded-messages.test.ts',
  'test/pg/quote.test.ts',
  'test/program.test.ts',
  'test/restore/analyze-groups.test.ts',
  'test/restore/archive-encoding.test.ts',
  'test/restore/archive-roles.test.ts',
  'test/restore/archive-rows.test.ts',
  'test/restore/archive-script.test.ts',
  'test/restore/archive.test.ts',
  'test/restore/database-options.test.ts',
  'test/restore/download-parts.test.ts',
  'test/restore/download-ranged.test.ts',
  'test/restore/download-write-error.test.ts',
  'test/restore/download.test.ts',
  'test/restore/not-restored.test.ts',
  'test/restore/recovery-point.test.ts',
  'test/restore/restore-passes.test.ts',
  'test/restore/scope.test.ts',
  'test/restore/target-uri.test.ts',
  'test/restore/target.test.ts',
  'test/restore/toc.test.ts',
  'test/sandbox/artifacts.test.ts',
  'test/sandbox/big-org.test.ts',
  'test/sandbox/contract.test.ts',
  'test/sandbox/data.test.ts',
  'test/sandbox/mutations.test.ts',
  'test/sandbox/paging.test.ts',
  'test/sandbox/range-file.test.ts',
  'test/sandbox/rate-limit.test.ts',
  'test/sandbox/recent-timestamps.test.ts',
  'test/sandbox/strictness.test.ts',
  'test/sandbox/tokens.test.ts',
  'test/secrets.test.ts',
  'test/support/artifact-server-faults.test.ts',
  'test/support/artifact-server.test.ts',
  'test/support/secret-scan.test.ts',
  'test/ui/progress.test.ts',
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
      project({ name: 'isolated', include: ['test/**/*.test.ts'], exclude: SHARED_WORKER_FILES, pool: 'forks' }),
      project({ name: 'shared', include: SHARED_WORKER_FILES, pool: 'forks', isolate: false }),
    ],
    ...runOptions,
  },
});

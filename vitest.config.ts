import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The shell completion scripts (src/commands/completion/shells/) are imported as their text, as the bundle's esbuild text loader does. */
const completionScriptsAsText = {
  name: 'completion-scripts-as-text',
  transform(code: string, id: string) {
    return /\.(?:bash|zsh|fish|ps1)$/.test(id) ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};

export default defineConfig({
  plugins: [completionScriptsAsText],
  test: {
    include: ['test/**/*.test.ts'],
    // Room for test files running side by side on a loaded machine: a drill reaching a gate can take 20 s and more.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The run's initdb'd data dir and one PostgreSQL cluster per worker slot (test/support/worker-cluster.ts).
    globalSetup: ['test/support/pg-run-setup.ts'],
    /*
     * Two test files per core. vitest's default (cores - 1) is one worker on a 2-core machine, yet
     * most test time is waiting on PostgreSQL, child processes and timers, not the CPU. Every file
     * already brings its own cluster, ports, temp dirs and HOME, and the bundle build takes a lock.
     */
    maxWorkers: Math.max(2, availableParallelism() * 2),
  },
});

/**
 * Peak memory of a built-CLI run (issue 11: "memory never follows what the server sends"). A tiny
 * preload writes the child's own peak RSS (getrusage's ru_maxrss) when it exits; reading VmHWM
 * from /proc/<pid>/status would race the exit, and `prlimit --as` is no measure for node, which
 * reserves far more address space than it ever touches.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './built-cli.js';

const PRELOAD = new URL('./peak-rss-preload.mjs', import.meta.url).href;

export interface PeakRss {
  /** The environment to spawn with: `env` plus the preload and the file it writes. */
  env: Record<string, string | undefined>;
  /** The child's peak RSS in MiB, once it has exited. */
  mib(): number;
}

export function measurePeakRss(env: Record<string, string | undefined>): PeakRss {
  const file = join(tempDir('rss'), 'peak-rss-kib');
  return {
    env: { ...env, NODE_OPTIONS: `--import=${PRELOAD}`, SVC_TEST_PEAK_RSS_FILE: file },
    mib: () => Number(readFileSync(file, 'utf8')) / 1024,
  };
}

/** The budget of cli-contract 6 for a run against a body that never ends. */
export const RSS_BUDGET_MIB = 256;

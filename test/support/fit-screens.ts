/**
 * Runs the built CLI under a real pseudo-terminal of a given width and reads what the terminal
 * showed (test/support/terminal-screen.ts): for the tests that no line is wider than the terminal
 * (cli-contract 4, v3). The width is the terminal's, never injected through the context.
 */
import { expect } from 'vitest';
import { delimiter } from 'node:path';
import { BIN, cleanEnv } from './built-cli.js';
import type { PgCluster } from './pg-cluster.js';
import { PtySession, type PtyResult } from './pty.js';
import { playScreen, type Screen } from './terminal-screen.js';
import type { TestSandbox } from './sandbox.js';

export const WIDTHS = [40, 60, 80, 120] as const;

export interface ScreenCase {
  args: string[];
  env: Record<string, string | undefined>;
  /** The exit code the run must end with: a screen of the wrong outcome proves nothing. Default 0. */
  exit?: number | 'any';
  /** Text the screen must show, so that a run that printed nothing cannot pass. */
  shows: RegExp;
  /** A command line for `sh -c` instead of `svc ...args` (stdin from a file, say), in which `SVC` runs the built CLI. */
  shell?: string;
  /** Once this shows, the keys are typed (a prompt's answer, "\x03" for Ctrl-C). */
  answer?: { when: RegExp; keys: string };
  /** Once this shows, svc is sent SIGINT (a server that runs until stopped). */
  stopWhen?: RegExp;
  timeoutMs?: number;
}

export interface ScreenRun extends Screen {
  width: number;
  result: PtyResult;
}

/** One run of a case in a terminal `width` columns wide. */
export async function runScreen(c: ScreenCase, width: number): Promise<ScreenRun> {
  const opts = { env: c.env, cols: width, rows: 40, timeoutMs: c.timeoutMs ?? 60_000 };
  const session = c.shell
    ? await PtySession.command(['/bin/sh', '-c', `SVC() { "${process.execPath}" "${BIN}" "$@"; }; ${c.shell}`], opts)
    : await PtySession.start(c.args, opts);
  try {
    if (c.answer) {
      await session.waitForText(c.answer.when, 30_000);
      session.type(c.answer.keys);
    }
    if (c.stopWhen) {
      await session.waitForText(c.stopWhen, 30_000);
      session.kill('SIGINT');
    }
    const result = await session.exited;
    return { width, result, ...(await playScreen(result.raw, width)) };
  } finally {
    await session.dispose();
  }
}

/**
 * The lines wider than the terminal. The one exception the contract leaves: a single word (a
 * digest, a URL, a DSN) wider than the whole terminal, alone on its line from the first column,
 * since cutting or splitting it would break the copy (the terminal's own wrap keeps it one word).
 */
export function tooWide(run: ScreenRun): string[] {
  return run.overflows.filter((line) => !/^\S+$/.test(line.trimEnd()));
}

/** For a failure message: the case, the width, and the screen. */
export function describeRun(name: string, run: ScreenRun): string {
  return `svc ${name} at ${run.width} columns (exit ${run.result.exitCode ?? run.result.signal}); too wide:\n${tooWide(run).join('\n')}\n--- screen ---\n${run.lines.join('\n')}`;
}

/**
 * Runs a case at every width (`make` may vary it by width: a database name, say), two at a time on
 * this 2-core machine, and expects its exit code, its text, and no line wider than the terminal.
 * Returns the runs, for more checks.
 */
export async function expectFits(name: string, make: (width: number) => ScreenCase): Promise<ScreenRun[]> {
  const cases = WIDTHS.map((w) => [w, make(w)] as const);
  const runs = await pooled(
    cases.map(
      ([w, c]) =>
        () =>
          runScreen(c, w),
    ),
    2,
  );
  for (const [i, run] of runs.entries()) {
    const c = cases[i]![1];
    if (c.exit !== 'any') expect(run.result.exitCode, describeRun(name, run)).toBe(c.exit ?? 0);
    expect(run.lines.join('\n'), describeRun(name, run)).toMatch(c.shows);
  }
  // Every width's lines at once, so one failure shows the whole picture.
  const wide = runs.flatMap((run) => tooWide(run).map((line) => `${run.width}: ${line}`));
  expect(wide, runs.map((run) => describeRun(name, run)).join('\n')).toEqual([]);
  return runs;
}

/** Runs `tasks` at most `limit` at a time. */
export async function pooled<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/**
 * svc's environment for a restore screen: the sandbox and its full token, the target `database` on
 * the cluster (its password only in the environment), the cluster's client tools first on PATH.
 */
export function restoreScreenEnv(sandbox: TestSandbox, cluster: PgCluster, database: string): Record<string, string> {
  return cleanEnv({
    SVC_BASE_URL: sandbox.baseUrl,
    SVC_API_KEY: sandbox.token('full'),
    SVC_TARGET_DSN: cluster.dsn(database, true),
    PGPASSWORD: cluster.password,
    PATH: `${cluster.binDir}${delimiter}${process.env.PATH}`,
  });
}

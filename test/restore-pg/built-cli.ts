/** The built CLI (`node bin/svc`), for tests that need a real process: signals, exit codes. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(REPO, 'bin', 'svc');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );
}

/** The build output bin/svc loads (e.g. dist/main.js, or a bundle), read from the launcher itself. */
export function launcherEntry(): string {
  const m = /['"](\.\.\/dist\/[^'"]+)['"]/.exec(readFileSync(BIN, 'utf8'));
  if (!m) throw new Error(`bin/svc does not import anything under dist/: cannot tell what to build`);
  return resolve(join(REPO, 'bin'), m[1]!);
}

/** Source files changed since the build bin/svc runs was made (all of them when it is missing). */
export function staleSources(): string[] {
  const entry = launcherEntry();
  const built = existsSync(entry) ? statSync(entry).mtimeMs : -1;
  return sources(join(REPO, 'src')).filter((f) => statSync(f).mtimeMs > built);
}

/**
 * Runs the project's build (`npm run build`) when src is newer than what bin/svc loads. Success is
 * judged by that output being fresh afterwards: a test of the built CLI must never run a stale build.
 */
export async function ensureBuilt(): Promise<void> {
  if (staleSources().length === 0) return;
  const r = await execa('npm', ['run', 'build'], { cwd: REPO, reject: false, all: true, timeout: 240_000 });
  const stale = staleSources();
  if (stale.length) {
    throw new Error(
      `\`npm run build\` (exit ${r.exitCode}) left ${launcherEntry()} older than ${stale.length} source file(s), e.g. ${stale[0]}:\n${r.all ?? ''}`,
    );
  }
}

/** `node bin/svc ...args` with exactly `env`; stdin gets `input` (then EOF) or nothing. */
export function spawnCli(args: string[], env: Record<string, string | undefined>, input?: string): ResultPromise<{ reject: false }> {
  return execa(process.execPath, [BIN, ...args], {
    cwd: REPO,
    env,
    extendEnv: false,
    reject: false,
    ...(input !== undefined ? { input } : { stdin: 'ignore' }),
    timeout: 60_000,
  }) as unknown as ResultPromise<{ reject: false }>;
}

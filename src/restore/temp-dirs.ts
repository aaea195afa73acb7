import { rmSync } from 'node:fs';

/**
 * Temp dirs of this run that must not outlive it: the PGPASSFILE's (it holds the DSN password) and
 * the artifact's. Normally the engine removes them itself; this is the net for an exit that skips
 * that cleanup, above all a second Ctrl-C, which main.ts answers with process.exit(130) at once.
 */
const live = new Set<string>();
let hooked = false;

export function trackTempDir(dir: string): void {
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', removeTrackedSync);
  }
}

export function untrackTempDir(dir: string): void {
  live.delete(dir);
}

function removeTrackedSync(): void {
  for (const dir of live) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort while the process goes down.
    }
  }
  live.clear();
}

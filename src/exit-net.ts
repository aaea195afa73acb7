/**
 * What must not outlive the process, however it ends: a second signal ends svc with process.exit,
 * which skips every finally. Owners register a synchronous clean-up; main.ts runs the net before it
 * says what a second signal left behind, and the process 'exit' hook runs it for every other exit.
 * A clean-up returns what it could not remove, so svc never claims a removal that did not happen.
 */
type Cleanup = () => string[];

const cleanups = new Set<Cleanup>();
let hooked = false;

export function addToExitNet(cleanup: Cleanup): void {
  cleanups.add(cleanup);
  if (hooked) return;
  hooked = true;
  process.on('exit', () => void runExitNet());
}

/** Runs every clean-up now; the paths that are still there. */
export function runExitNet(): string[] {
  const left: string[] = [];
  for (const cleanup of cleanups) {
    try {
      left.push(...cleanup());
    } catch {
      // Best effort while the process goes down.
    }
  }
  return left;
}

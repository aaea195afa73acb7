/**
 * For a run that must be caught in a phase: a PATH shim stops at `wait` until the test opens the
 * gate, and the test opens it on the event it waits for (a line the run printed), never after a
 * fixed delay.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ShellGate {
  /** A shell line that returns once the gate is open. */
  wait: string;
  open(): void;
}

/** A gate kept as a file in `dir` (one the shim can read). */
export function shellGate(dir: string): ShellGate {
  const file = join(dir, `gate-${randomUUID()}`);
  return { wait: `while [ ! -e '${file}' ]; do sleep 0.05; done`, open: () => writeFileSync(file, '') };
}

/** A stream listener that calls `then` once what came so far matches `pattern`. */
export function onceSeen(pattern: RegExp, then: () => void): (chunk: Buffer | string) => void {
  let seen = '';
  let done = false;
  return (chunk) => {
    if (done) return;
    seen += chunk.toString();
    if (pattern.test(seen)) {
      done = true;
      then();
    }
  };
}

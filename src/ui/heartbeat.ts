/** Without a terminal, a phase longer than this says it is alive at least this often (cli-contract 4): CI systems kill silent jobs. */
export const HEARTBEAT_MS = 60_000;

export interface Heartbeat {
  /** Something was printed for the phase just now: the next beat is a full interval away. */
  touch(): void;
  stop(): void;
}

/**
 * Calls `beat` whenever HEARTBEAT_MS pass with nothing printed for the phase. The timer never keeps
 * the process alive on its own.
 */
export function heartbeat(beat: () => void, intervalMs = HEARTBEAT_MS): Heartbeat {
  let last = performance.now();
  const timer = setInterval(
    () => {
      if (performance.now() - last < intervalMs - 50) return;
      last = performance.now();
      beat();
    },
    Math.min(intervalMs, 5_000),
  );
  timer.unref();
  return {
    touch: () => {
      last = performance.now();
    },
    stop: () => clearInterval(timer),
  };
}

import { heartbeatMs } from '../contract-timers.js';

export interface Heartbeat {
  /** Something was printed for the phase just now: the next beat is a full interval away. */
  touch(): void;
  stop(): void;
}

/**
 * Without a terminal, a phase that runs long says it is alive (cli-contract 4): CI systems kill
 * silent jobs. Calls `beat` whenever the heartbeat interval passes with nothing printed for the
 * phase. The timer never keeps the process alive on its own.
 */
export function heartbeat(beat: () => void, intervalMs = heartbeatMs()): Heartbeat {
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

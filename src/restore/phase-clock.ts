import type { Phase } from './plan.js';

/** Times each phase of a run as it starts: the failure message and the receipt both read `current`. */
export class PhaseClock {
  readonly durations: Partial<Record<Phase, number>> = {};
  current: Phase = 'preflight';
  readonly #started = performance.now();
  #phaseStarted = this.#started;
  readonly #onEnter: (phase: Phase) => void;

  /** `onEnter` hears of every phase, the first one included. */
  constructor(onEnter: (phase: Phase) => void = () => {}) {
    this.#onEnter = onEnter;
    onEnter(this.current);
  }

  enter(phase: Phase): void {
    this.#stop();
    this.current = phase;
    this.#onEnter(phase);
  }

  #stop(): void {
    const now = performance.now();
    this.durations[this.current] = Math.round(now - this.#phaseStarted);
    this.#phaseStarted = now;
  }

  /** Ends the current phase; the whole run's milliseconds. */
  total(): number {
    this.#stop();
    return Math.round(performance.now() - this.#started);
  }
}

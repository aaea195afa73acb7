import type { Phase } from './plan.js';

/** Times each phase of a run as it starts: the failure message and the receipt both read `current`. */
export class PhaseClock {
  readonly durations: Partial<Record<Phase, number>> = {};
  current: Phase = 'preflight';
  #started = performance.now();
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

  /**
   * Runs `wait` (a person typing at a prompt) outside every phase: its time counts in no phase and
   * not in the total (cli-contract 7.6).
   */
  async outside<T>(wait: () => Promise<T>): Promise<T> {
    const before = performance.now();
    try {
      return await wait();
    } finally {
      const spent = performance.now() - before;
      this.#phaseStarted += spent;
      this.#started += spent;
    }
  }

  /** Ends the current phase; the whole run's milliseconds. */
  total(): number {
    this.#stop();
    return Math.round(performance.now() - this.#started);
  }
}

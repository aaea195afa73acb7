/** One attempt's signal: aborted when the attempt runs past its timeout, or when the run is interrupted. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** The timeout, not the interruption, aborted it. */
  readonly timedOut: boolean;
  /** The attempt is over: its timer and its listener on the run's signal go. */
  end(): void;
}

/**
 * One controller and one timer per attempt, both let go when it ends. AbortSignal.timeout left its
 * timer pending for the whole timeout and AbortSignal.any tied a new signal to the run's for every
 * request: a walk of 10,000 pages paid about a quarter of a CPU-second for them.
 */
export function attemptSignal(timeoutMs: number, run: AbortSignal | undefined): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  // The reason AbortSignal.timeout gives, so that what undici throws on it stays the same.
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  // As AbortSignal.timeout's: the request in flight keeps the process alive, not its timer.
  timer.unref();
  const interrupted = () => controller.abort(run!.reason);
  if (run?.aborted) interrupted();
  else run?.addEventListener('abort', interrupted, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    end() {
      clearTimeout(timer);
      run?.removeEventListener('abort', interrupted);
    },
  };
}

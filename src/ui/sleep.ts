import { setTimeout as delay } from 'node:timers/promises';

/** Resolves after `ms`, or early (without throwing) when `signal` aborts: the caller checks the signal. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    // aborted
  }
}

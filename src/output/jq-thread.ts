import { Worker } from 'node:worker_threads';
import { CliError, InterruptedError } from '../errors.js';

/** One run of jq's command line: `jq <flags> <expression>` on `input`. */
export interface JqRequest {
  input: string;
  expression: string;
  flags: string[];
}

/** What the thread answers (output/jq-worker.mjs). */
export type JqReply =
  | { kind: 'done'; stdout: string | undefined }
  /** exitCode undefined: jq-web itself stopped (an abort), with `reason`. */
  | { kind: 'failed'; exitCode: number | undefined; stderr: string; reason: string }
  /** jq-web could not be loaded. */
  | { kind: 'unavailable'; message: string };

export interface JqWorkerData {
  wasmLimitBytes: number;
}

export interface JqLimits {
  /** jq's WebAssembly memory, where its values live: exact (output/jq-worker.mjs refuses to grow it further). */
  wasmMiB: number;
  /**
   * How much a run may add to svc's resident memory in all. jq-web gathers jq's output and stderr
   * in JavaScript arrays (eight bytes a byte), outside the WebAssembly limit: this bounds those.
   */
  growthMiB: number;
}

/**
 * Measured (issue 17, Node 20): `.` on a 16 MiB document, the most the API client reads for one
 * response, needs about 260 MiB of jq memory and adds 850-950 MiB in all, most of it jq-web gathering
 * the output. `[range(3e8)] | length` stops at the first limit with svc at about 470 MiB peak;
 * output without end stops at the second with svc at 1.1-1.3 GiB.
 */
export const JQ_LIMITS: JqLimits = { wasmMiB: 512, growthMiB: 1024 };

const MiB = 1024 * 1024;

/** How often a run's memory is looked at: often enough that it overshoots by little. */
const WATCH_MS = 10;

/** jq_out_of_memory: jq's values hit `wasmMiB` (`values`), or the run as a whole hit `growthMiB` (`run`). */
export function jqOutOfMemory(limits: JqLimits, what: 'values' | 'run'): CliError {
  const limit = what === 'values' ? `${limits.wasmMiB} MiB for its values` : `${limits.growthMiB} MiB for a run in all, its output included`;
  return new CliError('jq_out_of_memory', `The --jq expression ran out of memory: svc gives jq ${limit}.`);
}

/**
 * jq-web in a worker thread, so that the main thread stays free for signals while jq computes:
 * a run ends when jq answers, when the run's signal aborts (SIGINT, SIGTERM, SIGHUP) or when it
 * outgrows its memory; the last two terminate the thread. One run at a time.
 */
export class JqThread {
  readonly #worker: Worker;
  readonly #signal: AbortSignal;
  readonly #limits: JqLimits;
  /** Why the thread is gone; every later run fails with it. */
  #ended: CliError | undefined;

  constructor(signal: AbortSignal, limits: JqLimits) {
    this.#signal = signal;
    this.#limits = limits;
    this.#worker = new Worker(new URL('./jq-worker.mjs', import.meta.url), {
      workerData: { wasmLimitBytes: limits.wasmMiB * MiB } satisfies JqWorkerData,
      // jq sees the document it is given, never the environment (where SVC_API_KEY may be).
      env: {},
      // What Emscripten prints (its "Aborted()" line, jq's debug output) is not svc's to show.
      stdout: true,
      stderr: true,
      // A worker that reaches its V8 heap limit can take the whole process down (nodejs/node#47224,
      // always so on Node 24): the growth watch below must end a run first.
      resourceLimits: { maxOldGenerationSizeMb: 2 * limits.growthMiB },
    });
    this.#worker.stdout.resume();
    this.#worker.stderr.resume();
    this.#worker.on('error', (err) => this.#end(new CliError('unexpected', `jq stopped: ${err.message}`)));
    this.#worker.on('exit', (code) => this.#end(new CliError('unexpected', `jq stopped (thread exit ${code}).`)));
    // Idle, the thread keeps nothing alive; a run holds a reference while it waits.
    this.#worker.unref();
  }

  run(request: JqRequest): Promise<JqReply> {
    return new Promise((resolve, reject) => {
      if (this.#ended) return reject(this.#ended);
      const worker = this.#worker;
      const baseline = process.memoryUsage.rss();
      let watch: NodeJS.Timeout | undefined;
      const settle = (done: () => void) => {
        clearInterval(watch);
        this.#signal.removeEventListener('abort', onAbort);
        worker.off('message', onReply).off('error', onError).off('exit', onExit);
        worker.unref();
        done();
      };
      const stop = (reason: CliError) => {
        this.#end(reason);
        settle(() => reject(reason));
      };
      const onReply = (reply: JqReply) => settle(() => resolve(reply));
      const onError = (err: Error & { code?: string }) =>
        stop(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? jqOutOfMemory(this.#limits, 'run') : new CliError('unexpected', `jq stopped: ${err.message}`));
      const onExit = () => stop(this.#ended ?? new CliError('unexpected', 'jq stopped.'));
      const onAbort = () => stop(new InterruptedError());
      if (this.#signal.aborted) return onAbort();
      this.#signal.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onReply).on('error', onError).on('exit', onExit);
      watch = setInterval(() => {
        if (process.memoryUsage.rss() - baseline > this.#limits.growthMiB * MiB) stop(jqOutOfMemory(this.#limits, 'run'));
      }, WATCH_MS);
      worker.ref();
      worker.postMessage(request);
    });
  }

  /** Ends the thread (idempotent); a run in progress fails. */
  async close(): Promise<void> {
    this.#end(new CliError('unexpected', 'jq was closed.'));
    await this.#worker.terminate();
  }

  /** Records why the thread ends (the first reason wins) and terminates it. */
  #end(reason: CliError): void {
    if (this.#ended) return;
    this.#ended = reason;
    void this.#worker.terminate();
  }
}

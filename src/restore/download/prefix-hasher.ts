import { Worker } from 'node:worker_threads';
import { readFailure, type ArtifactFile } from './sink.js';

/** One piece of the artifact: bytes [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** What the hashing thread is started with: the artifact file's descriptor, shared, and its size. */
export interface HashWorkerData {
  fd: number;
  total: number;
}

/**
 * limit: bytes [0, at) are on disk and final unless rewound; mark: an attempt starts at `at` (keep
 * the digest there); unmark: that attempt ended and keeps its bytes; rewind: it ended with bytes
 * not to be trusted, from `at` on.
 */
export type ToHashWorker = { kind: 'limit' | 'mark' | 'unmark' | 'rewind'; at: number };

type FromHashWorker = { kind: 'digest'; sha256: string } | { kind: 'error'; code: string };

/**
 * SHA-256 of an artifact whose parts arrive in parallel, computed in order as the contiguous
 * prefix on disk grows, never by a second pass over the file (cli-contract 7.4).
 *
 * The bytes are hashed in a worker thread (./prefix-hash-worker.mjs) that reads the file in order:
 * the thread that receives the parts only writes them, and tells the worker how far the prefix
 * reaches. The prefix is every complete part, then what the first incomplete part has written.
 * That part's bytes may still be rewound (an answer that ran past its range is not trusted): the
 * worker keeps the digest at the start of each attempt (mark) and goes back to it (rewind).
 * The page cache usually still holds what was just written, so reading it back is a copy.
 * Memory: the worker's 1 MiB buffer, whatever the size and the number of parts.
 */
export class PrefixHasher {
  readonly #worker: Worker;
  /** Per part: bytes from its start that are on disk. */
  readonly #written: number[];
  readonly #done: boolean[];
  /** The first part that is not complete. */
  #lead = 0;
  #limit = 0;
  readonly #digest: Promise<string>;
  #stopped = false;

  constructor(
    file: ArtifactFile,
    private readonly parts: readonly Span[],
    /** A read failure in the worker: the caller stops every part. */
    onFailure: (err: unknown) => void,
  ) {
    this.#written = parts.map(() => 0);
    this.#done = parts.map(() => false);
    this.#worker = new Worker(new URL('./prefix-hash-worker.mjs', import.meta.url), {
      workerData: { fd: file.handle.fd, total: parts.at(-1)?.end ?? 0 } satisfies HashWorkerData,
      env: {},
      stdout: true,
      stderr: true,
    });
    this.#worker.stdout.resume();
    this.#worker.stderr.resume();
    this.#digest = new Promise<string>((resolve, reject) => {
      const fail = (err: unknown) => {
        reject(err);
        onFailure(err);
      };
      this.#worker.on('message', (m: FromHashWorker) => (m.kind === 'digest' ? resolve(m.sha256) : fail(readFailure(m.code))));
      this.#worker.on('error', (err) => fail(readFailure(err.message)));
      this.#worker.on('exit', (code) => {
        if (!this.#stopped) fail(readFailure(`hashing thread exit ${code}`));
      });
    });
    // Awaited only once every part is done; a failure before then reaches onFailure.
    this.#digest.catch(() => {});
  }

  /** An attempt of part `i` starts writing at `at`: the digest there is kept until release() or rewind(). */
  mark(at: number): void {
    this.#send({ kind: 'mark', at });
  }

  /** The attempt that started at `at` ended and its bytes stay. */
  release(at: number): void {
    this.#send({ kind: 'unmark', at });
  }

  /** The attempt of part `i` that started at `at` is not trusted: its bytes leave the prefix and the digest. */
  rewind(i: number, at: number): void {
    this.#written[i] = at - this.parts[i]!.start;
    this.#limit = Math.min(this.#limit, at);
    this.#send({ kind: 'rewind', at });
  }

  /** Part `i` has bytes [its start, end) on disk. */
  written(i: number, end: number): void {
    this.#written[i] = end - this.parts[i]!.start;
    if (i === this.#lead) this.#advance();
  }

  /** Part `i` has all its bytes on disk and no attempt of it runs. */
  complete(i: number): void {
    this.#done[i] = true;
    this.#written[i] = this.parts[i]!.end - this.parts[i]!.start;
    if (i === this.#lead) this.#advance();
  }

  #advance(): void {
    while (this.#lead < this.parts.length && this.#done[this.#lead]) this.#lead++;
    const lead = this.parts[this.#lead];
    const limit = lead ? lead.start + this.#written[this.#lead]! : (this.parts.at(-1)?.end ?? 0);
    if (limit > this.#limit) {
      this.#limit = limit;
      this.#send({ kind: 'limit', at: limit });
    }
  }

  #send(message: ToHashWorker): void {
    if (!this.#stopped) this.#worker.postMessage(message);
  }

  /** Once every part is complete: the hex digest of the whole file, when the worker has read the last byte. */
  digest(): Promise<string> {
    return this.#digest;
  }

  /** Stops the worker (idempotent): before the file closes, and on any failure or signal. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#worker.terminate();
  }
}

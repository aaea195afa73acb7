import { createHash, type Hash } from 'node:crypto';
import { InterruptedError } from '../errors.js';
import type { ArtifactFile } from './sink.js';

/** One piece of the artifact: bytes [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** The digest as it was at one offset: an attempt whose bytes turn out bad rewinds to it. */
export interface Mark {
  at: number;
  hash: Hash;
}

/** Read-back piece size: the only buffer the hasher holds. */
const READ_BACK_BYTES = 1024 * 1024;

/**
 * SHA-256 of an artifact whose parts arrive in parallel, computed in order as the contiguous
 * prefix grows, never by a second pass over the file (cli-contract 7.4).
 *
 * The "lead" is the part holding the first unhashed byte. While it downloads, it hashes its own
 * chunks as they arrive (owns() is true only for it). Parts ahead of it only write to the file.
 * When the lead finishes, the prefix moves on in the background: a part that finished ahead is
 * read back from the file once, in 1 MiB pieces; the first part still downloading becomes the
 * lead and, on its next chunk, reads back what it wrote before that, then hashes from memory.
 * Exactly one of those two holds the hash at any time, so every byte is hashed exactly once.
 * Memory: one 1 MiB buffer, whatever the size and the number of parts.
 */
export class PrefixHasher {
  #hash: Hash = createHash('sha256');
  #hashed = 0;
  #readBack = 0;
  #lead = 0;
  readonly #done: boolean[];
  readonly #buffer = Buffer.allocUnsafe(READ_BACK_BYTES);
  #advancing: Promise<void> = Promise.resolve();
  #failure: unknown;

  constructor(
    private readonly file: ArtifactFile,
    private readonly parts: readonly Span[],
    private readonly signal: AbortSignal,
    /** A read-back failure in the background: the caller stops every part. */
    private readonly onFailure: (err: unknown) => void,
  ) {
    this.#done = parts.map(() => false);
  }

  /** Bytes [0, hashed) are in the digest. */
  get hashed(): number {
    return this.#hashed;
  }

  /** Of those, the bytes that came from the file rather than from memory. */
  get readBack(): number {
    return this.#readBack;
  }

  /** Whether part `i` holds the hash now: it may read back and update. */
  owns(i: number): boolean {
    return this.#lead === i;
  }

  update(chunk: Buffer): void {
    this.#hash.update(chunk);
    this.#hashed += chunk.length;
  }

  /** Hashes file bytes [hashed, to): only bytes already on disk, only by the owner. */
  async readBackTo(to: number): Promise<void> {
    while (this.hashed < to) {
      if (this.signal.aborted) throw new InterruptedError();
      const length = Math.min(this.#buffer.length, to - this.hashed);
      await this.file.readAt(this.#buffer, length, this.hashed);
      this.#hash.update(this.#buffer.subarray(0, length));
      this.#hashed += length;
      this.#readBack += length;
    }
  }

  mark(): Mark {
    return { at: this.hashed, hash: this.#hash.copy() };
  }

  rewind(mark: Mark): void {
    this.#hash = mark.hash;
    this.#hashed = mark.at;
  }

  /**
   * Part `i` has all its bytes on disk. If it holds the hash it first hashes its own tail; then the
   * prefix moves on through the parts that finished ahead, in the background.
   */
  async complete(i: number): Promise<void> {
    if (this.owns(i)) await this.readBackTo(this.parts[i]!.end);
    // No await between this check and the flag: the background advance sees a part either as
    // still downloading (and hands it the hash) or as done (and reads it back), never both.
    this.#done[i] = true;
    if (this.#lead !== i) return;
    this.#lead++;
    this.#advancing = this.#advance().catch((err: unknown) => {
      this.#failure ??= err;
      this.onFailure(err);
    });
  }

  async #advance(): Promise<void> {
    // Only one of these runs at a time: a new one starts only when a lead finishes, and while this
    // one runs the lead is a finished part.
    while (this.#lead < this.parts.length && this.#done[this.#lead]) {
      await this.readBackTo(this.parts[this.#lead]!.end);
      this.#lead++;
    }
  }

  /** Resolves once no read-back runs in the background (it never rejects: see onFailure). */
  async idle(): Promise<void> {
    await this.#advancing;
  }

  /** Once every part has finished: the hex digest of the whole file. */
  async digest(): Promise<string> {
    await this.#advancing;
    if (this.#failure) throw this.#failure;
    const total = this.parts.at(-1)?.end ?? 0;
    if (this.hashed !== total) throw new Error(`prefix hash stopped at ${this.hashed} of ${total} bytes`);
    return this.#hash.digest('hex');
  }
}

import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { networkErrorCode } from '../api/undici.js';
import { IntegrityError } from '../errors.js';

/**
 * Bytes the file stream may hold before the download waits for the disk. Large, so writes go out
 * as few big writev calls; bounded, so memory stays flat whatever the artifact's size.
 */
const WRITE_BUFFER = 4 * 1024 * 1024;

/** The 0600 artifact file and the SHA-256 of what was written to it, in the same pass. */
export class Sink {
  #stream: WriteStream;
  /** A write error of the file (disk full, EIO): kept here, so it is never an unhandled 'error' event. */
  #error: Error | undefined;
  hash: Hash = createHash('sha256');
  received = 0;

  constructor(readonly path: string) {
    this.#stream = this.#open();
  }

  #open(): WriteStream {
    const stream = createWriteStream(this.path, { flags: 'w', mode: 0o600, highWaterMark: WRITE_BUFFER });
    stream.on('error', (err) => {
      this.#error ??= err;
    });
    return stream;
  }

  /** Throws once the file can no longer be written: the download cannot succeed, retries or not. */
  #check(): void {
    const err = this.#error ?? this.#stream.errored;
    if (!err) return;
    throw new IntegrityError(
      `Could not write the artifact to the work directory: ${networkErrorCode(err, 'write failed')}. Nothing was restored.`,
      'Free some space (or pass --work-dir on another disk), then run the restore again.',
    );
  }

  async write(chunk: Buffer): Promise<void> {
    this.#check();
    this.hash.update(chunk);
    this.received += chunk.length;
    if (!this.#stream.write(chunk)) await once(this.#stream, 'drain').catch(() => {});
    this.#check();
  }

  /** The server ignored our Range request: throw away what we have and count from zero. */
  async restart(): Promise<void> {
    await this.close();
    this.#stream = this.#open();
    this.hash = createHash('sha256');
    this.received = 0;
  }

  async close(): Promise<void> {
    if (!this.#stream.closed) {
      this.#stream.end();
      await once(this.#stream, 'close').catch(() => {});
    }
    this.#check();
  }
}


import { open, type FileHandle } from 'node:fs/promises';
import { networkErrorCode } from '../../api/undici.js';
import { IntegrityError } from '../../errors.js';

/**
 * A writer's buffer: writes of this size (one system call per 256 KiB, not per network chunk), and
 * two of them (one on its way to disk, one filling) per part in memory, whatever the artifact's size.
 */
const BATCH_BYTES = 256 * 1024;
/** How long gathered bytes may wait for the rest of their batch. */
const TRICKLE_MS = 50;

const WRITE_HINT = 'Free some space (or pass --work-dir on another disk), then run the restore again.';

/** A disk error (full, EIO, quota): the download cannot succeed, retries or not. */
function diskFailure(err: unknown, what: 'write' | 'read'): IntegrityError {
  const verb = what === 'write' ? 'write the artifact to' : 'read the artifact back from';
  return new IntegrityError(`Could not ${verb} the work directory: ${networkErrorCode(err, `${what} failed`)}. Nothing was restored.`, WRITE_HINT);
}

/** A read failure of the prefix hash's thread, which reports only the error's code. */
export function readFailure(code: string): IntegrityError {
  return diskFailure({ code }, 'read');
}

/**
 * The 0600 artifact file, written at explicit offsets: one stream writes it front to back, parallel
 * parts each write their own range. Every I/O error comes out as an IntegrityError (exit 10).
 */
export class ArtifactFile {
  #closed = false;

  private constructor(
    readonly path: string,
    readonly handle: FileHandle,
  ) {}

  /** Created (or truncated) for reading and writing: the prefix hash reads back what parts wrote. */
  static async open(path: string): Promise<ArtifactFile> {
    try {
      return new ArtifactFile(path, await open(path, 'w+', 0o600));
    } catch (err) {
      throw diskFailure(err, 'write');
    }
  }

  /** Writes every byte of `bytes` at `position` (a write may take fewer than asked). */
  async writeAt(bytes: Buffer, position: number): Promise<void> {
    let done = 0;
    try {
      while (done < bytes.length) {
        const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done, position + done);
        if (bytesWritten === 0) throw Object.assign(new Error('no progress'), { code: 'EIO' });
        done += bytesWritten;
      }
    } catch (err) {
      throw diskFailure(err, 'write');
    }
  }

  /** Reads exactly `length` bytes at `position` into `buffer`: bytes a part has already written. */
  async readAt(buffer: Buffer, length: number, position: number): Promise<void> {
    let done = 0;
    try {
      while (done < length) {
        const { bytesRead } = await this.handle.read(buffer, done, length - done, position + done);
        if (bytesRead === 0) throw Object.assign(new Error('file shorter than written'), { code: 'EIO' });
        done += bytesRead;
      }
    } catch (err) {
      throw diskFailure(err, 'read');
    }
  }

  /** `onWritten(end)`: bytes [position, end) are on disk. */
  writer(position: number, onWritten?: (end: number) => void): PartWriter {
    return new PartWriter(this, position, onWritten);
  }

  /** Idempotent. A close error (delayed write-back, NFS) fails the download like a write error. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.handle.close();
    } catch (err) {
      throw diskFailure(err, 'write');
    }
  }
}

/**
 * Writes one sequential run of bytes (a part, or the single stream) from `position` on, like a
 * write stream: network chunks gather in a buffer that goes to disk as one write when full, or
 * TRICKLE_MS after its first byte (a slow trickle still reaches the file), or at flush(), while
 * the next fills. push() waits (so the caller stops reading the socket) when both buffers are
 * busy. Chunks are copied, so each socket chunk dies young instead of being held until written.
 */
export class PartWriter {
  #fill = Buffer.allocUnsafe(BATCH_BYTES);
  #spare = Buffer.allocUnsafe(BATCH_BYTES);
  #filled = 0;
  #writing = false;
  #inflight: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  /** A failed write: kept so an unawaited write never becomes an unhandled rejection. */
  #error: unknown;

  constructor(
    private readonly file: ArtifactFile,
    /** Where the bytes being gathered go. */
    private position: number,
    private readonly onWritten: (end: number) => void = () => {},
  ) {}

  /** Undefined when the chunk was taken at once; otherwise a promise to wait for before the next. */
  push(chunk: Buffer): Promise<void> | undefined {
    if (this.#filled + chunk.length >= this.#fill.length) return this.#pushFull(chunk);
    chunk.copy(this.#fill, this.#filled);
    this.#filled += chunk.length;
    this.#trickle();
    return undefined;
  }

  async #pushFull(chunk: Buffer): Promise<void> {
    for (let taken = 0; taken < chunk.length;) {
      const n = chunk.copy(this.#fill, this.#filled, taken);
      this.#filled += n;
      taken += n;
      if (this.#filled === this.#fill.length) await this.#send();
    }
    this.#trickle();
  }

  #trickle(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      // Its failure is kept in #error, for the next push() or flush() to throw.
      this.#send().catch(() => {});
    }, TRICKLE_MS).unref();
  }

  /** Every byte pushed so far is on disk when this resolves. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#send();
    await this.#inflight;
    this.#check();
  }

  /** Once the previous write is done: writes the gathered bytes, and gathers into the other buffer. */
  async #send(): Promise<void> {
    // One write at a time: a full buffer and the trickle timer may both ask.
    while (this.#writing) await this.#inflight;
    this.#check();
    if (this.#filled === 0) return;
    const full = this.#fill;
    const bytes = full.subarray(0, this.#filled);
    const at = this.position;
    this.position += this.#filled;
    this.#fill = this.#spare;
    this.#spare = full;
    this.#filled = 0;
    this.#writing = true;
    this.#inflight = this.file.writeAt(bytes, at).then(
      () => {
        this.#writing = false;
        this.onWritten(at + bytes.length);
      },
      (err: unknown) => {
        this.#writing = false;
        this.#error ??= err;
      },
    );
  }

  #check(): void {
    if (this.#error) throw this.#error;
  }
}

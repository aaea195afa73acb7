import { setMaxListeners } from 'node:events';
import { withRetries } from '../../api/retry.js';
import { IntegrityError, InterruptedError } from '../../errors.js';
import { discard, get, header, parseContentRange, pump, rejectStatus, resumableAttempt, Transient, type Response } from './artifact-http.js';
import type { Job, Received } from './download.js';
import { PrefixHasher, type Span } from './prefix-hasher.js';

const MiB = 1024 * 1024;
/** Below this an artifact is one stream: parallel parts would not pay for their requests. */
export const RANGED_MIN_BYTES = 64 * MiB;
const MIN_PART = 8 * MiB;
const MAX_PART = 32 * MiB;
/** About four parts per connection: a slow part does not leave the others idle at the end. */
const PARTS_PER_CONNECTION = 4;

/**
 * The parts of an artifact fetched with `connections` parallel Range requests, or undefined for
 * one stream. Parts are MiB-aligned, 8-32 MiB (the last one may be shorter), like aws-cli's.
 */
export function planParts(total: number, connections: number): Span[] | undefined {
  if (total < RANGED_MIN_BYTES || connections < 2) return undefined;
  const wanted = Math.ceil(total / (connections * PARTS_PER_CONNECTION) / MiB) * MiB;
  const size = Math.min(MAX_PART, Math.max(MIN_PART, wanted));
  const parts: Span[] = [];
  for (let start = 0; start < total; start += size) parts.push({ start, end: Math.min(total, start + size) });
  // A short tail rides with the part before it when the two still make one part.
  const [tail, before] = [parts.at(-1)!, parts.at(-2)!];
  if (tail.end - tail.start < MIN_PART && tail.end - before.start <= MAX_PART) parts.splice(-2, 2, { start: before.start, end: tail.end });
  return parts;
}

/** The connections a download of `total` bytes uses, given `connections` allowed: 1 below 64 MiB, where it is one stream. */
export function connectionsFor(total: number, connections: number): number {
  const parts = planParts(total, connections);
  return parts ? Math.min(connections, parts.length) : 1;
}

/** The parts cannot go on: the download starts over as one stream, saying why. */
class OneStreamNeeded extends Error {
  constructor(
    readonly notice: string,
    /** The first part's 200 (a server ignoring Range), its body unread: the one stream carries on with it. */
    readonly response?: Response,
  ) {
    super(notice);
  }
}

export type PartsOutcome = ({ kind: 'done' } & Received) | { kind: 'one-stream'; notice: string; response?: Response };

/**
 * Fetches `parts` with up to `connections` parallel Range requests, each written at its offset
 * into the one file. Every part must answer 206 with exactly the Content-Range it asked for and
 * the first answer's ETag; each retries on its own; the digest grows in order (PrefixHasher).
 */
export function downloadInParts(job: Job, parts: Span[], connections: number): Promise<PartsOutcome> {
  return new RangedDownload(job, parts, connections).run();
}

class RangedDownload {
  readonly #stop = new AbortController();
  readonly #signal: AbortSignal;
  readonly #hasher: PrefixHasher;
  #failure: unknown;
  /** The first answer's ETag: undefined until a part has answered, null if the server sends none. */
  #etag: string | null | undefined;
  #received = 0;
  #next = 0;
  #probed = () => {};

  constructor(
    private readonly job: Job,
    private readonly parts: Span[],
    private readonly connections: number,
  ) {
    this.#signal = AbortSignal.any([job.signal, this.#stop.signal]);
    // One listener per request in flight and per retry wait: many, by design, not a leak.
    setMaxListeners(8 * connections + 16, this.#signal);
    this.#hasher = new PrefixHasher(job.file, parts, (err) => this.#fail(err));
  }

  async run(): Promise<PartsOutcome> {
    try {
      return await this.#run();
    } finally {
      // Before the file closes, and whatever ended the download: a signal, a failure, one stream.
      await this.#hasher.stop();
    }
  }

  async #run(): Promise<PartsOutcome> {
    // The first part's request goes alone: a server that ignores Range costs no extra request,
    // and its ETag is known before the others ask.
    const probed = new Promise<void>((resolve) => (this.#probed = resolve));
    const first = this.#worker();
    await Promise.race([probed, first]);
    const others = this.#failure ? [] : Array.from({ length: Math.min(this.connections, this.parts.length) - 1 }, () => this.#worker());
    await Promise.all([first, ...others]);
    // The last bytes are on disk: the hashing thread has at most one batch per part left to read.
    const digest = this.#failure ? undefined : await this.#hasher.digest().catch((err: unknown) => void this.#fail(err));
    const failure = this.#failure;
    if (this.job.signal.aborted) {
      if (failure instanceof OneStreamNeeded && failure.response) discard(failure.response);
      throw new InterruptedError();
    }
    if (failure instanceof OneStreamNeeded) return { kind: 'one-stream', notice: failure.notice, response: failure.response };
    if (failure) throw failure;
    return { kind: 'done', bytes: this.#received, sha256: digest! };
  }

  /** Keeps the first failure and stops every part: a fatal answer, Ctrl-C, or a reason to start over. */
  #fail(err: unknown): void {
    this.#failure ??= err;
    // The first part's 200 goes to the one stream as it is: aborting would cut its body. Nothing
    // else runs yet, since the other parts wait for the first answer.
    if (!(err instanceof OneStreamNeeded && err.response)) this.#stop.abort();
  }

  async #worker(): Promise<void> {
    while (this.#next < this.parts.length && !this.#signal.aborted) {
      try {
        await this.#part(this.#next++);
      } catch (err) {
        this.#fail(err);
        return;
      }
    }
  }

  #progress(delta: number): void {
    this.#received += delta;
    this.job.onProgress(this.#received, this.job.total);
  }

  async #part(i: number): Promise<void> {
    const part = this.parts[i]!;
    const state = { pos: part.start };
    const label = `part ${i + 1} of ${this.parts.length}`;
    let lastFailure = '';
    await withRetries({ ...this.job.policy, signal: this.#signal }, async (n) => {
      const before = state.pos;
      if (n > 0) this.job.onNotice(`Download of ${label} interrupted (${lastFailure}); resuming at byte ${before} of ${this.job.total}.`);
      return resumableAttempt(
        this.#signal,
        () => state.pos > before,
        ` (${label})`,
        (m) => (lastFailure = m),
        () => this.#attempt(i, state),
      );
    });
    this.#hasher.complete(i);
  }

  /** One request for what part `i` still lacks, [state.pos, end), written at its offset. */
  async #attempt(i: number, state: { pos: number }): Promise<void> {
    const part = this.parts[i]!;
    const from = state.pos;
    const res = await get(this.job, this.#signal, `bytes=${from}-${part.end - 1}`);
    const status = res.statusCode;
    if (status !== 200 && status !== 206) await rejectStatus(res, this.job.timeoutMs);
    if (status === 200) {
      if (this.#etag === undefined) throw new OneStreamNeeded('The artifact server ignored the Range request; downloading the artifact as one stream.', res);
      discard(res);
      throw new OneStreamNeeded('The artifact server stopped honouring Range requests; downloading the artifact again as one stream.');
    }
    const range = parseContentRange(res);
    if (!range || range.start !== from || range.end !== part.end - 1 || range.total !== this.job.total) {
      discard(res);
      throw new OneStreamNeeded('The artifact server answered a part with a different Content-Range; downloading the artifact again as one stream.');
    }
    const etag = header(res, 'etag') ?? null;
    if (this.#etag === undefined) {
      this.#etag = etag;
      this.#probed();
    } else if (this.#etag !== null && etag !== this.#etag) {
      discard(res);
      throw new OneStreamNeeded('The artifact changed during the download (its ETag changed); downloading the artifact again as one stream.');
    }
    const length = header(res, 'content-length');
    if (length !== undefined && Number(length) !== part.end - from) {
      discard(res);
      throw new Transient(`Content-Length ${Number(length)} for a range of ${part.end - from} bytes`);
    }

    const hasher = this.#hasher;
    // The digest as it is at `from` is kept while this attempt runs: an overrun goes back to it.
    hasher.mark(from);
    const writer = this.job.file.writer(from, (end) => hasher.written(i, end));
    let outcome: 'ended' | 'overrun' = 'ended';
    try {
      outcome = await pump(res.body, this.#signal, part.end - from, (chunk) => {
        state.pos += chunk.length;
        this.#progress(chunk.length);
        return writer.push(chunk);
      });
    } finally {
      await writer.flush().finally(() => {
        if (outcome !== 'overrun') hasher.release(from);
      });
    }
    if (outcome === 'overrun') {
      // The answer ran past its range: none of it is trusted. The bytes beyond were never
      // accepted; the ones within are fetched again, and the digest forgets them.
      hasher.rewind(i, from);
      this.#progress(from - state.pos);
      state.pos = from;
      throw new Transient('a part body longer than its range');
    }
    if (state.pos < part.end) throw new Transient('part ended early');
  }
}

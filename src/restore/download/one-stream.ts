import { createHash, type Hash } from 'node:crypto';
import { withRetries } from '../../api/retry.js';
import { IntegrityError } from '../../errors.js';
import { discard, get, header, parseContentRange, pump, rejectStatus, resumableAttempt, Transient, type Response } from './artifact-http.js';
import type { Job, Received } from './download.js';

/**
 * The artifact as one stream, hashed as it arrives; a cut transfer resumes with `Range: bytes=N-`
 * (206 with a Content-Range continuing at N required, otherwise it starts over). `first`, when
 * given, is an answer already received: the 200 of a server that ignored the first part's Range.
 */
export async function downloadOneStream(job: Job, first?: Response): Promise<Received> {
  const total = job.total;
  const state: Stream = { pos: 0, hash: createHash('sha256') };
  let given = first;
  let lastFailure = '';
  await withRetries({ ...job.policy, signal: job.signal }, async (n) => {
    const before = state.pos;
    if (n > 0 && before > 0) job.onNotice(`Download interrupted (${lastFailure}); resuming at byte ${before} of ${total}.`);
    const res = given;
    given = undefined;
    return resumableAttempt(
      job.signal,
      () => state.pos > before,
      '',
      (m) => (lastFailure = m),
      () => attempt(job, state, res),
    );
  });
  return { bytes: state.pos, sha256: state.hash.digest('hex') };
}

/** Bytes [0, pos) are on disk (or on their way) and in `hash`. */
interface Stream {
  pos: number;
  hash: Hash;
}

async function attempt(job: Job, state: Stream, given: Response | undefined): Promise<void> {
  const total = job.total;
  const resumeAt = state.pos;
  const res = given ?? (await get(job, job.signal, resumeAt > 0 ? `bytes=${resumeAt}-` : undefined));
  const status = res.statusCode;
  if (status !== 200 && status !== 206) await rejectStatus(res, job.timeoutMs);

  const restart = () => {
    state.pos = 0;
    state.hash = createHash('sha256');
  };
  if (resumeAt > 0) {
    if (status === 200) {
      job.onNotice('The artifact server ignored the Range request; downloading from the start again.');
      restart();
    } else if (!continuesAt(res, resumeAt, total)) {
      discard(res);
      job.onNotice('The artifact server answered the Range request with a different range; downloading from the start again.');
      restart();
      throw new Transient('mismatched Content-Range');
    }
  } else if (status === 206) {
    discard(res);
    throw new Transient('unexpected partial content');
  }
  const announced = Number(header(res, 'content-length') ?? NaN);
  if (status === 200 && Number.isFinite(announced) && announced !== total) {
    // Not one byte of it is read: the size alone settles it.
    discard(res);
    throw new IntegrityError(
      `Artifact size mismatch: the artifact store announces ${announced} bytes, the service expected ${total}. Nothing was downloaded or restored.`,
    );
  }

  const writer = job.file.writer(state.pos);
  let outcome: 'ended' | 'overrun';
  try {
    outcome = await pump(res.body, job.signal, total - state.pos, (chunk) => {
      state.hash.update(chunk);
      state.pos += chunk.length;
      job.onProgress(state.pos, total);
      return writer.push(chunk);
    });
  } finally {
    await writer.flush();
  }
  if (outcome === 'overrun') {
    throw new IntegrityError(`Artifact size mismatch: more than the expected ${total} bytes arrived. Nothing was restored.`);
  }
  // A body that ends cleanly but short is resumed like a cut one.
  if (state.pos < total) throw new Transient('transfer ended early');
}

/** The resumed answer continues exactly where we stopped, and runs to the end of the artifact. */
function continuesAt(res: Response, start: number, total: number): boolean {
  const range = parseContentRange(res);
  return !!range && range.start === start && (range.total === -1 || range.total === total) && range.end < total;
}

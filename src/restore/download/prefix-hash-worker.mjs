// @ts-check
/**
 * The thread the ranged download's SHA-256 runs in (restore/prefix-hasher.ts starts it and owns
 * it): it reads the artifact file in order, up to the limit the downloading thread sets (bytes on
 * disk, every part before them complete), and hashes what it reads, so no byte is hashed on the
 * thread that receives them. Plain JavaScript, checked by tsc: Node 20 runs no TypeScript in a
 * worker, and this one file then serves from the sources and, as an entry of the bundle
 * (tools/bundle.mjs), from dist/.
 */
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** @typedef {import('./prefix-hasher.js').HashWorkerData} HashWorkerData */
/** @typedef {import('./prefix-hasher.js').ToHashWorker} ToHashWorker */
/** @typedef {import('node:crypto').Hash} Hash */

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const { fd, total } = /** @type {HashWorkerData} */ (workerData);

/** Read size: with the buffer, all the memory this thread holds for the file. */
const PIECE = 1024 * 1024;
const buffer = Buffer.allocUnsafe(PIECE);

let hash = createHash('sha256');
/** Bytes [0, hashed) are in `hash`. */
let hashed = 0;
/** Bytes [0, limit) are on disk and may be read. */
let limit = 0;
/** The digest at the start of each attempt still running; null until the hash reaches it. */
/** @type {Map<number, Hash | null>} */
const marks = new Map();
/** The digest went out: messages that come after it (the last attempt's unmark) change nothing. */
let finished = false;

/**
 * Reads exactly `length` bytes at `position` into the buffer. Synchronous: this thread has nothing
 * else to do meanwhile, and a hop to libuv's pool and back per read costs more than the copy when
 * the machine is busy. Messages wait in the port until the hash has caught up with the limit.
 * @param {number} length @param {number} position
 */
function readFully(length, position) {
  for (let done = 0; done < length;) {
    const n = readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) throw Object.assign(new Error('file shorter than written'), { code: 'EIO' });
    done += n;
  }
}

function advance() {
  if (finished) return;
  try {
    while (hashed < limit) {
      let end = Math.min(limit, hashed + PIECE);
      // A read stops at a mark, so the digest there can be kept.
      for (const at of marks.keys()) if (at > hashed && at < end) end = at;
      readFully(end - hashed, hashed);
      hash.update(buffer.subarray(0, end - hashed));
      hashed = end;
      if (marks.get(hashed) === null) marks.set(hashed, hash.copy());
    }
    if (hashed === total) {
      finished = true;
      port.postMessage({ kind: 'digest', sha256: hash.digest('hex') });
    }
  } catch (err) {
    port.postMessage({ kind: 'error', code: /** @type {{ code?: unknown }} */ (err).code ?? 'EIO' });
  }
}

port.on('message', (/** @type {ToHashWorker} */ m) => {
  if (m.kind === 'limit') limit = Math.max(limit, m.at);
  else if (m.kind === 'mark') marks.set(m.at, m.at === hashed ? hash.copy() : null);
  else if (m.kind === 'unmark') marks.delete(m.at);
  else {
    // An attempt's bytes are not to be trusted: back to the digest where it started.
    limit = Math.min(limit, m.at);
    const mark = marks.get(m.at);
    if (hashed > m.at) {
      if (!mark) return port.postMessage({ kind: 'error', code: 'a rewind past its mark' });
      hash = mark;
      hashed = m.at;
    }
    for (const at of marks.keys()) if (at >= m.at) marks.delete(at);
  }
  advance();
});

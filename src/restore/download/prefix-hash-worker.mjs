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
import { read } from 'node:fs';
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
/** Bumped by each rewind: a read that was in flight across one is dropped. */
let generation = 0;
/** The digest at the start of each attempt still running; null until the hash reaches it. */
/** @type {Map<number, Hash | null>} */
const marks = new Map();
let running = false;
/** The digest went out: a message after it (the last attempt's unmark) changes nothing. */
let finished = false;

/** @param {number} length @param {number} position @returns {Promise<void>} */
function readFully(length, position) {
  return new Promise((resolve, reject) => {
    const step = (/** @type {number} */ done) =>
      read(fd, buffer, done, length - done, position + done, (err, n) => {
        if (err) return reject(err);
        if (n === 0) return reject(Object.assign(new Error('file shorter than written'), { code: 'EIO' }));
        if (done + n < length) return step(done + n);
        resolve();
      });
    step(0);
  });
}

async function advance() {
  if (running || finished) return;
  running = true;
  try {
    while (hashed < limit) {
      const seen = generation;
      let end = Math.min(limit, hashed + PIECE);
      // A read stops at a mark, so the digest there can be kept.
      for (const at of marks.keys()) if (at > hashed && at < end) end = at;
      await readFully(end - hashed, hashed);
      if (seen !== generation) continue;
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
  } finally {
    running = false;
  }
}

port.on('message', (/** @type {ToHashWorker} */ m) => {
  if (m.kind === 'limit') limit = Math.max(limit, m.at);
  else if (m.kind === 'mark') marks.set(m.at, m.at === hashed ? hash.copy() : null);
  else if (m.kind === 'unmark') marks.delete(m.at);
  else {
    // An attempt's bytes are not to be trusted: back to the digest where it started.
    generation++;
    limit = Math.min(limit, m.at);
    const mark = marks.get(m.at);
    if (hashed > m.at) {
      if (!mark) return port.postMessage({ kind: 'error', code: 'a rewind past its mark' });
      hash = mark;
      hashed = m.at;
    }
    for (const at of marks.keys()) if (at >= m.at) marks.delete(at);
  }
  void advance();
});

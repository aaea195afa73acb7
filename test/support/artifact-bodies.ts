/** Response bodies that misbehave, for the artifact server's fault modes. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseRange, type ServedRange } from '../../src/sandbox/range-file.js';

/**
 * Resolves once `res` can take more, or is gone. Both listeners are removed either way: a 'close'
 * listener left behind per 'drain' piles up on a long body (MaxListenersExceededWarning).
 */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Flips the byte at absolute file offset `offset`, if it falls inside the served range. */
export function corruptAt(offset: number, range: ServedRange): Transform {
  let pos = range.start;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (offset >= pos && offset < pos + chunk.length) {
        chunk = Buffer.from(chunk);
        chunk[offset - pos] = chunk[offset - pos]! ^ 0xff;
      }
      pos += chunk.length;
      cb(null, chunk);
    },
  });
}

/** Pieces of bytesPerChunk with delayMs between them (none before the first). */
export function throttle(bytesPerChunk: number, delayMs: number): Transform {
  const ac = new AbortController();
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      void (async () => {
        try {
          for (let i = 0; i < chunk.length; i += bytesPerChunk) {
            if (!first) await sleep(delayMs, undefined, { signal: ac.signal });
            first = false;
            this.push(chunk.subarray(i, i + bytesPerChunk));
          }
          cb();
        } catch (e) {
          cb(e as Error);
        }
      })();
    },
    destroy(err, cb) {
      ac.abort();
      cb(err);
    },
  });
}

/** Passes `limit` bytes, then ends early; the caller destroys the socket once they are flushed. */
export function truncate(limit: number): Transform {
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (sent >= limit) return cb();
      const part = chunk.subarray(0, limit - sent);
      sent += part.length;
      this.push(part);
      if (sent >= limit) this.push(null);
      cb();
    },
  });
}

/** `status` with an S3-like XML error body that never ends: only the client hanging up stops it. */
export async function endlessError(res: ServerResponse, status: number): Promise<void> {
  res.writeHead(status, { 'Content-Type': 'application/xml' });
  res.write('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>');
  const filler = Buffer.alloc(64 * 1024, 'x');
  while (!res.destroyed) {
    if (!res.write(filler)) await drained(res);
  }
}

/** 206 with the asked range's bytes and Content-Range, then `extra` bytes the range does not hold. */
export async function overrun(
  req: IncomingMessage,
  res: ServerResponse,
  filePath: string,
  headers: Record<string, string>,
  fault: { extra: number; announce?: boolean },
): Promise<void> {
  const total = (await stat(filePath)).size;
  const asked = parseRange(req.headers.range, total);
  if (asked.kind !== 'range') throw new Error('overrun needs a satisfiable Range');
  const length = asked.end - asked.start + 1;
  res.writeHead(206, {
    ...headers,
    'Content-Type': 'application/octet-stream',
    'Content-Range': `bytes ${asked.start}-${asked.end}/${total}`,
    ...(fault.announce ? { 'Content-Length': length + fault.extra } : {}),
  });
  const body = createReadStream(filePath, { start: asked.start, end: asked.end });
  for await (const chunk of body) {
    if (res.destroyed) return void body.destroy();
    if (!res.write(chunk)) await drained(res);
  }
  if (!res.destroyed) res.end(Buffer.alloc(fault.extra, 0xee));
}

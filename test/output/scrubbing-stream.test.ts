/**
 * scrubbingStream (src/secrets.ts) under ora's write hooks. While a spinner runs in a terminal, ora
 * replaces `write` on the stream it was given (svc's scrubbing proxy) and on process.stderr (the
 * proxy's own target), then puts both back. The proxy once passed the first assignment on to its
 * target, so its scrubbing write called itself: a stack overflow at the first frame of every spinner
 * in a real terminal (found by test/restore/signals-terminal.test.ts).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { scrubbingStream } from '../../src/secrets.js';

type Write = (...args: unknown[]) => boolean;

function sink(): { stream: Writable; written: string[] } {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { stream, written };
}

/** What ora's #hookStream does to one stream: keep its write, put a pass-through in its place. */
function hook(stream: { write: unknown }, seen: string[], name: string): () => void {
  const original = stream.write as Write;
  stream.write = (...args: unknown[]) => {
    seen.push(name);
    return original.call(stream, ...args);
  };
  return () => {
    stream.write = original;
  };
}

describe('scrubbingStream under a spinner that hooks write', () => {
  it('a write through the proxy passes both hooks once and is scrubbed, with no loop', () => {
    const { stream, written } = sink();
    const proxy = scrubbingStream(stream, (t) => t.replaceAll('s3cret', '[redacted]'));
    const seen: string[] = [];
    // ora's order: the spinner's own stream first, then process.stderr (here the proxy's target).
    const unhookProxy = hook(proxy, seen, 'proxy hook');
    const unhookTarget = hook(stream, seen, 'target hook');

    proxy.write('token s3cret\n');
    expect(seen).toEqual(['proxy hook', 'target hook']);
    expect(written).toEqual(['token [redacted]\n']);

    unhookProxy();
    unhookTarget();
    seen.length = 0;
    proxy.write('again s3cret\n');
    expect(seen).toEqual([]);
    expect(written).toEqual(['token [redacted]\n', 'again [redacted]\n']);
    // The target's write is its own again: nothing of the proxy was left on it.
    expect(stream.write).toBe(Writable.prototype.write);
  });

  it('other properties set through the proxy still reach the stream', () => {
    const { stream } = sink();
    const proxy = scrubbingStream(stream, (t) => t) as Writable & { columns?: number };
    proxy.columns = 42;
    expect((stream as Writable & { columns?: number }).columns).toBe(42);
  });
});

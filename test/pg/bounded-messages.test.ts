/**
 * What svc holds of one message from the server while a SQL check runs (cli-contract 9, v4 step
 * 10): BoundedMessages rewrites the backend's message stream before node-postgres's parser, which
 * would otherwise buffer a whole row, whatever its size. The output is parsed here by that parser
 * (pg-protocol), as svc's connection does.
 */
import { EventEmitter } from 'node:events';
import { parse } from 'pg-protocol';
import { describe, expect, it } from 'vitest';
import { BoundedMessages } from '../../src/pg/bounded-messages.js';

const BOUNDS = { valueBytes: 804, textBytes: 2048, otherBytes: 1 << 20 };

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function dataRow(values: Array<Buffer | null>): Buffer {
  const parts: Buffer[] = [Buffer.from([values.length >> 8, values.length & 0xff])];
  for (const v of values) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(v === null ? -1 : v.length);
    parts.push(len, ...(v ? [v] : []));
  }
  return message('D', Buffer.concat(parts));
}

const errorResponse = (fields: Record<string, string>) =>
  message(
    'E',
    Buffer.concat([...Object.entries(fields).flatMap(([code, text]) => [Buffer.from(code), Buffer.from(text), Buffer.from([0])]), Buffer.from([0])]),
  );

/** Feeds `chunks` through BoundedMessages into pg-protocol's parser: the messages pg would see, and the bytes it was given. */
async function through(chunks: Iterable<Buffer>): Promise<{ messages: Array<Record<string, unknown>>; bytes: number; largest: number }> {
  const relay = new EventEmitter();
  const messages: Array<Record<string, unknown>> = [];
  let bytes = 0;
  let largest = 0;
  const done = parse(relay as never, (msg) => messages.push(msg as unknown as Record<string, unknown>));
  const bounded = new BoundedMessages(BOUNDS, (chunk) => {
    bytes += chunk.length;
    largest = Math.max(largest, chunk.length);
    relay.emit('data', chunk);
  });
  for (const chunk of chunks) bounded.push(chunk);
  relay.emit('end');
  await done;
  return { messages, bytes, largest };
}

/** `buffer` in pieces of `size` bytes. */
function* pieces(buffer: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

describe('BoundedMessages', () => {
  it('cuts each value of a row to its bound and leaves short values, nulls and empty strings as they are, at any chunk boundary', async () => {
    const long = Buffer.from('é'.repeat(3000));
    const stream = Buffer.concat([
      message('T', Buffer.from([0, 0])),
      dataRow([Buffer.from('abc'), null, Buffer.alloc(0), long, Buffer.from('z')]),
      message('C', Buffer.from('SELECT 1\0')),
      message('Z', Buffer.from('I')),
    ]);
    for (const size of [1, 3, 7, 64, stream.length]) {
      const { messages } = await through(pieces(stream, size));
      expect(messages.map((m) => m.name)).toEqual(['rowDescription', 'dataRow', 'commandComplete', 'readyForQuery']);
      const fields = messages[1]!.fields as Array<string | null>;
      expect(fields.slice(0, 3)).toEqual(['abc', null, '']);
      expect(fields[4]).toBe('z');
      // 804 bytes: 402 two-byte characters, the first 200 of them intact.
      expect(Buffer.byteLength(fields[3]!)).toBe(804);
      expect(fields[3]!.startsWith('é'.repeat(200))).toBe(true);
      expect(messages[2]).toMatchObject({ text: 'SELECT 1' });
    }
  });

  it('a 120 MB value, arriving in 64 KiB pieces, costs under a kilobyte downstream', async () => {
    const size = 120 * 1024 * 1024;
    function* rowOf120Mb(): Generator<Buffer> {
      const head = Buffer.alloc(11);
      head.write('D', 0, 'latin1');
      head.writeUInt32BE(4 + 2 + 4 + size, 1);
      head.writeUInt16BE(1, 5);
      head.writeInt32BE(size, 7);
      yield head;
      const piece = Buffer.alloc(64 * 1024, 'x');
      for (let left = size; left > 0; left -= piece.length) yield piece.subarray(0, Math.min(left, piece.length));
      yield message('Z', Buffer.from('I'));
    }
    const { messages, bytes, largest } = await through(rowOf120Mb());
    expect(messages.map((m) => m.name)).toEqual(['dataRow', 'readyForQuery']);
    expect(messages[0]!.fields).toEqual(['x'.repeat(804)]);
    expect(bytes).toBeLessThan(1024);
    expect(largest).toBeLessThan(1024);
  });

  it('cuts each text field of an error or notice; the fields after a long one survive', async () => {
    const { messages } = await through(
      pieces(errorResponse({ S: 'ERROR', V: 'ERROR', C: '22P02', M: `invalid input: "${'y'.repeat(1_000_000)}"`, D: 'the detail' }), 4096),
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ name: 'error', severity: 'ERROR', code: '22P02', detail: 'the detail' });
    expect((messages[0]!.message as string).length).toBe(2048);
  });

  it('any other message over its bound ends the connection', () => {
    const bounded = new BoundedMessages(BOUNDS, () => undefined);
    const head = Buffer.alloc(5);
    head.write('T', 0, 'latin1');
    head.writeUInt32BE((2 << 20) + 4, 1);
    expect(() => bounded.push(head)).toThrow(/a message of 2097152 bytes \(type T\), more than svc reads/);
  });

  it('a row whose field claims more bytes than its message holds is refused', () => {
    const row = dataRow([Buffer.from('abc')]);
    row.writeInt32BE(1000, 7);
    expect(() => new BoundedMessages(BOUNDS, () => undefined).push(row)).toThrow(/malformed/);
  });
});

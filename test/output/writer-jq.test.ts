/**
 * The writer with --jq, whose results come later (jq runs in its own thread): stdout keeps the
 * documents' order, render() settles once its lines are written, and a failure reaches flush().
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { Writer, type JqFilter } from '../../src/output/writer.js';
import { painter } from '../../src/ui/style.js';

/** A filter that answers each document's `lines` after its `ms`, or fails with its `fail`. */
const slowFilter: JqFilter = {
  lines: async (document) => {
    const { lines, ms, fail } = document as { lines: string[]; ms: number; fail?: string };
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (fail) throw new CliError('jq_failed', fail);
    return lines;
  },
};

function writer(): { out: Writer; stdout: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const out = new Writer(stream, { json: false, jq: slowFilter, paint: painter(false), notice: () => {}, scrubDocument: (d) => d });
  return { out, stdout: () => text };
}

describe('Writer with --jq', () => {
  it('writes documents in the order given, though a later one is answered first', async () => {
    const { out, stdout } = writer();
    void out.render({ lines: ['first'], ms: 60 }, []);
    void out.document({ lines: ['second', 'third'], ms: 0 });
    await out.flush();
    expect(stdout()).toBe('first\nsecond\nthird\n');
  });

  it('render() settles once its lines are on stdout, so what a command says next comes after them', async () => {
    const { out, stdout } = writer();
    await out.render({ lines: ['db_orders'], ms: 30 }, []);
    expect(stdout()).toBe('db_orders\n');
  });

  it('a failure rejects that render, reaches flush(), and no later document is written', async () => {
    const { out, stdout } = writer();
    const failed = out.render({ lines: [], ms: 10, fail: 'Cannot index array' }, []);
    void out.document({ lines: ['after'], ms: 0 });
    await expect(failed).rejects.toThrow('Cannot index array');
    await expect(out.flush()).rejects.toThrow('Cannot index array');
    expect(stdout()).toBe('');
  });

  it('a render nobody awaits that fails is no unhandled rejection: flush() reports it', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { out } = writer();
      void out.render({ lines: [], ms: 0, fail: 'halted' }, []);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(out.flush()).rejects.toThrow('halted');
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

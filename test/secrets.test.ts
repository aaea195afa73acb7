/**
 * SecretScrubber.scrubDocument is what every --json document and every streamed page passes
 * through before it is printed or handed to --jq: secret fields by key, known secrets and
 * credentials in any string, at any depth; everything else, keys included, exactly as it came.
 */
import { describe, expect, it } from 'vitest';
import { SecretScrubber } from '../src/secrets.js';

const TOKEN = 'svc_live_0123456789abcdef0123456789abcdef';

const scrubber = () => {
  const s = new SecretScrubber();
  s.add(TOKEN);
  return s;
};

describe('scrubDocument', () => {
  it('redacts secret fields, known secrets and URI passwords at any depth, and leaves the input as it was', () => {
    const input = JSON.parse(
      JSON.stringify({
        restores: [
          { id: 'rst_1', execution: { lockToken: 'lk_0123456789abcdef0123', note: `token ${TOKEN} echoed` } },
          { id: 'rst_2', target: 'postgresql://app:hunter2@db.internal:5432/orders', tags: ['a', `x${TOKEN}`] },
        ],
      }),
    );
    const before = JSON.stringify(input);
    const out = scrubber().scrubDocument(input);
    expect(out).toEqual({
      restores: [
        { id: 'rst_1', execution: { lockToken: '[redacted]', note: 'token [redacted] echoed' } },
        { id: 'rst_2', target: 'postgresql://app:[redacted]@db.internal:5432/orders', tags: ['a', 'x[redacted]'] },
      ],
    });
    expect(JSON.stringify(input)).toBe(before);
  });

  it('gives back a document with nothing to scrub exactly, a "__proto__" key still data', () => {
    const input = JSON.parse('{"databases":[{"id":"db_1","name":"orders","__proto__":{"polluted":true},"sizes":[1,2,null,true]}],"nextCursor":null}');
    const out = scrubber().scrubDocument(input);
    expect(JSON.stringify(out)).toBe(JSON.stringify(input));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps a "__proto__" key as data in a part that changed', () => {
    const input = JSON.parse(`{"__proto__":{"polluted":true},"note":"${TOKEN}"}`);
    const out = scrubber().scrubDocument(input) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"note":"[redacted]"}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('scrubKnown', () => {
  it.each([
    ['a presigned URL signature', 'https://s3.example/a?X-Amz-Signature=abcdef0123&x=1', 'https://s3.example/a?X-Amz-Signature=[redacted]&x=1'],
    ['a lockToken field in JSON text', '{"lockToken": "lk_anything"}', '{"lockToken": "[redacted]"}'],
    ['a password= parameter', 'host=db password=secret dbname=x', 'host=db password=[redacted] dbname=x'],
    ['plain text', 'orders restored in 12 s', 'orders restored in 12 s'],
  ])('%s', (_name, text, expected) => {
    expect(scrubber().scrubKnown(text)).toBe(expected);
  });
});

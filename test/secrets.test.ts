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

describe('mayChangeDocument', () => {
  /** Secrets JSON writes escaped in part: a quote, a backslash, a control character, a lone surrogate. */
  const awkward = ['pw"quoted\\back_0123456789', 'tab\there\u0001ctl_0123456789', '\udc00lone_surrogate_0123456789'];
  const withAwkward = () => {
    const s = scrubber();
    for (const secret of awkward) s.add(secret);
    return s;
  };
  const documents: Array<[string, unknown]> = [
    ['the token in a string among many items', { databases: [...Array.from({ length: 50 }, (_, i) => ({ id: `db_${i}` })), { note: `echo ${TOKEN}` }] }],
    ["the token's random part alone", { id: '0123456789abcdef0123456789abcdef' }],
    ...awkward.map((secret): [string, unknown] => [`a secret JSON escapes in part (${JSON.stringify(secret)})`, { note: `a${secret}b` }]),
    ['a lone surrogate secret inside a surrogate pair', { note: `\ud800${awkward[2]}` }],
    ['a lockToken field', { execution: { lockToken: 'lk_anything' } }],
    ['a presignedS3Url field in any case of its text', { a: { presignedS3Url: 'https://x' } }],
    ['a presigned signature in a URL', { url: 'https://s3.example/a?x-amz-signature=abc' }],
    ['a URI with a password', { target: 'postgresql://app:hunter2@db:5432/x' }],
    ['a password= parameter', { dsn: 'host=db PASSWORD=hunter2' }],
    ['a lockToken field written as text in a string', { note: '{"lockToken": "lk_1"}' }],
  ];

  it.each(documents)('%s: true, compact and pretty, where scrubDocument changes the document', (_name, document) => {
    const s = withAwkward();
    expect(s.scrubDocument(document)).not.toBe(document);
    expect(s.mayChangeDocument(JSON.stringify(document))).toBe(true);
    expect(s.mayChangeDocument(JSON.stringify(document, null, 2))).toBe(true);
  });

  it('false for a page with nothing to scrub, so it prints without a walk of its items', () => {
    const s = withAwkward();
    const page = { databases: Array.from({ length: 1000 }, (_, i) => ({ id: `db_${i}`, name: `orders "${i}"\n`, tokenCount: i, url: 'https:/x' })) };
    expect(s.scrubDocument(page)).toBe(page);
    expect(s.mayChangeDocument(JSON.stringify(page, null, 2))).toBe(false);
  });

  it('true for every text when a secret has nothing JSON writes as it is', () => {
    const s = new SecretScrubber();
    s.add('"\\\u0001"');
    expect(s.mayChangeDocument('{"id":"db_1"}')).toBe(true);
  });
});

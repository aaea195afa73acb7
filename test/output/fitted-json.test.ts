/**
 * Pretty JSON on a terminal fits it (cli-contract 4, v3): a member whose value does not fit beside
 * its key goes on the next line, one level deeper. Only whitespace between tokens changes.
 */
import { describe, expect, it } from 'vitest';
import { fittedJson } from '../../src/output/fitted-json.js';

const BODY = {
  database: {
    id: 'db_orders',
    name: 'orders-prod',
    lastSuccessfulBackupAt: '2026-11-24T02:12:39Z',
    tags: ['a', 'b'],
    nested: { empty: {}, none: [], n: 1.5, yes: true, no: null },
  },
};

describe('fittedJson', () => {
  it('where everything fits, exactly what JSON.stringify(value, null, 2) prints', () => {
    expect(fittedJson(BODY, 2, 200)).toBe(JSON.stringify(BODY, null, 2));
  });

  it('a member too wide for the terminal has its value on the next line, one level deeper; it parses the same', () => {
    const text = fittedJson(BODY, 2, 40);
    expect(text).toContain('    "lastSuccessfulBackupAt":\n      "2026-11-24T02:12:39Z",\n');
    expect(text).toContain('    "name": "orders-prod",\n');
    expect(JSON.parse(text)).toEqual(BODY);
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(40);
  });

  it('an object or array still opens beside its key; a string wider than the terminal is left whole', () => {
    const long = 'x'.repeat(50);
    const text = fittedJson({ list: [long], map: { key: long } }, 2, 30);
    expect(text).toBe(`{\n  "list": [\n    "${long}"\n  ],\n  "map": {\n    "key":\n      "${long}"\n  }\n}`);
  });

  it('control characters are escaped as on every other JSON svc prints (C1 included)', () => {
    expect(fittedJson({ a: 'x\u009b31m\u0007' }, 2, 80)).toBe('{\n  "a": "x\\u009b31m\\u0007"\n}');
  });
});

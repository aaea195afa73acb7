import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { artifactInfo, readDumpHeader, SEED_SQL_PATH, SEEDS } from './seed.js';
import { FIXTURES_DIR } from './fixtures.js';

const ARCHIVES = Object.keys(SEEDS) as (keyof typeof SEEDS)[];

describe.each(ARCHIVES)('committed seed artifact %s', (name) => {
  const archive = join(FIXTURES_DIR, 'artifacts', `${name}.pgdump`);
  const metaFile = join(FIXTURES_DIR, 'artifacts', `${name}.json`);

  test(`${name}.json matches ${name}.pgdump: size, sha256 and header versions`, async () => {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(meta).sort()).toEqual(['archiveFormatVersion', 'pgDumpVersion', 'sha256', 'sizeBytes']);
    expect(meta.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(meta.archiveFormatVersion).toMatch(/^1\.\d+$/);
    expect(await artifactInfo(archive)).toEqual(meta);
  });

  test('is a small custom-format pg_dump archive of its seed database', async () => {
    const bytes = readFileSync(archive);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('PGDMP');
    expect(bytes[10]).toBe(1); // archCustom
    expect(bytes.length).toBeLessThan(1024 * 1024);
    const header = await readDumpHeader(archive);
    expect(header.pgDumpVersion).toMatch(/^\d+\.\d+/);
    // The header's database name: length-prefixed, so it appears verbatim in the first bytes.
    expect(bytes.subarray(0, 200).includes(Buffer.from(SEEDS[name].database))).toBe(true);
  });

  test('its seed script has no source of randomness', () => {
    const sql = readFileSync(SEEDS[name].sqlPath, 'utf8').replace(/--.*$/gm, '');
    expect(sql).not.toMatch(/\brandom\s*\(|\bnow\s*\(|current_timestamp|current_date|clock_timestamp|gen_random_uuid/i);
    expect(sql).toMatch(/generate_series/);
  });
});

test('SEED_SQL_PATH points at fixtures/pg/seed.sql; the billing seed is fixtures/pg/billing-seed.sql', () => {
  expect(SEED_SQL_PATH).toBe(join(FIXTURES_DIR, 'pg', 'seed.sql'));
  expect(SEEDS.billing.sqlPath).toBe(join(FIXTURES_DIR, 'pg', 'billing-seed.sql'));
});

test("the two seeds share no table, view, sequence or index name: a drill's restore of one never looks like the other", () => {
  const names = (file: string) =>
    new Set([...readFileSync(file, 'utf8').matchAll(/CREATE (?:UNIQUE )?(?:TABLE|SEQUENCE|INDEX|VIEW|MATERIALIZED VIEW) (\w+)/g)].map((m) => m[1]));
  const acme = names(SEEDS['acme-orders'].sqlPath);
  const billing = names(SEEDS.billing.sqlPath);
  expect(acme.size).toBeGreaterThan(3);
  expect(billing.size).toBeGreaterThan(5);
  expect([...billing].filter((n) => acme.has(n))).toEqual([]);
});

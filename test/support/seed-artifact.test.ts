import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { artifactInfo, readDumpHeader, SEED_SQL_PATH } from './seed.js';
import { FIXTURES_DIR } from './fixtures.js';

const ARCHIVE = join(FIXTURES_DIR, 'artifacts', 'acme-orders.pgdump');
const META = join(FIXTURES_DIR, 'artifacts', 'acme-orders.json');

describe('committed seed artifact', () => {
  test('acme-orders.json matches acme-orders.pgdump: size, sha256 and header versions', async () => {
    const meta = JSON.parse(readFileSync(META, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(meta).sort()).toEqual(['archiveFormatVersion', 'pgDumpVersion', 'sha256', 'sizeBytes']);
    expect(meta.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(meta.archiveFormatVersion).toMatch(/^1\.\d+$/);
    expect(await artifactInfo(ARCHIVE)).toEqual(meta);
  });

  test('is a small custom-format pg_dump archive', async () => {
    const bytes = readFileSync(ARCHIVE);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('PGDMP');
    expect(bytes[10]).toBe(1); // archCustom
    expect(bytes.length).toBeLessThan(1024 * 1024);
    const header = await readDumpHeader(ARCHIVE);
    expect(header.pgDumpVersion).toMatch(/^\d+\.\d+/);
  });

  test('SEED_SQL_PATH points at fixtures/pg/seed.sql, which has no source of randomness', () => {
    expect(SEED_SQL_PATH).toBe(join(FIXTURES_DIR, 'pg', 'seed.sql'));
    const sql = readFileSync(SEED_SQL_PATH, 'utf8').replace(/--.*$/gm, '');
    expect(sql).not.toMatch(/\brandom\s*\(|\bnow\s*\(|current_timestamp|clock_timestamp|gen_random_uuid/i);
    expect(sql).toMatch(/generate_series/);
  });
});

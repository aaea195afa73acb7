/**
 * The drill harness's own detectors must be able to fail: a password shape in text, a process
 * working in (or naming) a work dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { PASSWORD_SHAPES, processesIn } from './drill-e2e.js';
import { leaksIn } from './secret-scan.js';

describe('PASSWORD_SHAPES', () => {
  const leaks = (text: string) => leaksIn(text, { patterns: PASSWORD_SHAPES });

  it.each([
    'postgresql://postgres:s3cret@127.0.0.1:5432/db',
    'postgres://u:p%40ss@host/db',
    'host=127.0.0.1 password=s3cret',
    'PGPASSWORD=s3cret psql',
    '{ "password": "s3cret" }',
  ])('finds a password in %j', (text) => {
    expect(leaks(text)).not.toEqual([]);
  });

  it.each([
    'postgresql://postgres@127.0.0.1:5432/svc_drill_db_orders_0a1b2c3d',
    'http://127.0.0.1:4010/api/v1/restores',
    'Check --scratch: host, port, user and password (or PGPASSWORD / ~/.pgpass), and that the server accepts connections from here.',
    'warning: The password in --scratch is visible to other local users in the process list',
  ])('finds none in %j', (text) => {
    expect(leaks(text)).toEqual([]);
  });
});

describe('processesIn', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-drill-procs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a process whose working directory is in the dir, and one that names it, until they end', async () => {
    const inside = execa('sleep', ['30'], { cwd: dir, reject: false, stdio: 'ignore' });
    const naming = execa(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)', dir], { reject: false, stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 200));
      const found = processesIn(dir);
      expect(found.some((p) => p.startsWith(`${inside.pid} `))).toBe(true);
      expect(found.some((p) => p.startsWith(`${naming.pid} `))).toBe(true);
    } finally {
      inside.kill('SIGKILL');
      naming.kill('SIGKILL');
      await Promise.all([inside, naming]);
    }
    expect(processesIn(dir)).toEqual([]);
  });
});

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR } from '../../src/sandbox/data-files.js';
import { loadSandboxData } from '../../src/sandbox/data-loader.js';
import { SandboxDataError } from '../../src/sandbox/data-reader.js';
import { api, raw, startTestSandbox } from '../support/sandbox.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of fixtures/ (api, sandbox, artifacts) with `edit` applied to one JSON file. */
function copyData(file?: string, edit?: (json: any) => void): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-data-'));
  dirs.push(dir);
  for (const sub of ['api', 'sandbox', 'artifacts']) cpSync(path.join(DEFAULT_DATA_DIR, sub), path.join(dir, sub), { recursive: true });
  if (file && edit) {
    const p = path.join(dir, file);
    const json = JSON.parse(readFileSync(p, 'utf8'));
    edit(json);
    writeFileSync(p, JSON.stringify(json));
  }
  return dir;
}

describe('the data set', () => {
  it('the repository fixtures load and agree with each other', async () => {
    const data = await loadSandboxData();
    expect([...data.organizations.keys()]).toEqual(['org_acme', 'org_globex']);
    expect(data.backupJobs.map((b) => b.id)).toEqual(['bj_0004', 'bj_0005', 'bj_0006', 'bj_0007', 'bj_0008', 'bj_0009']);
    const meta = (name: string) => JSON.parse(readFileSync(path.join(DEFAULT_DATA_DIR, `artifacts/${name}.json`), 'utf8'));
    expect(data.artifacts.defaultName).toBe('acme-orders');
    expect(data.artifacts.urlTtlSeconds).toBe(900);
    expect([...data.artifacts.files.keys()]).toEqual(['acme-orders', 'billing']);
    for (const name of ['acme-orders', 'billing']) {
      expect(data.artifacts.files.get(name)).toEqual({ name, path: path.join(DEFAULT_DATA_DIR, `artifacts/${name}.pgdump`), ...meta(name) });
    }
    expect(data.artifacts.byDatabase).toEqual(new Map([['db_billing', 'billing']]));
  });

  it('--data serves another directory with the same layout', async () => {
    const dir = copyData('sandbox/settings.json', (s) => {
      s.pageSize.perList.databases = 5;
    });
    const sb = await startTestSandbox({ dataDir: dir });
    try {
      const res = await raw(sb, 'GET', api('/databases'));
      expect(res.json.databases).toHaveLength(3);
      expect(res.json.nextCursor).toBeNull();
      expect(sb.dataDir).toBe(dir);
    } finally {
      await sb.stop();
    }
  });

  it.each([
    ['a backup of an unknown database', 'sandbox/world.json', (w: any) => (w.backupJobs[0].protectedDatabaseId = 'db_gone'), /world\.json: backup bj_0004: unknown database db_gone/],
    ['evidence without its backup job', 'sandbox/world.json', (w: any) => w.backupJobs.splice(1, 1), /evidence bj_0005: no such backup job/],
    ['a resource of an organization without a token', 'sandbox/tokens.json', (t: any) => t.tokens.splice(5, 1), /org_globex, which no token/],
    ['a token that is not svc_sandbox_<hex>', 'sandbox/tokens.json', (t: any) => (t.tokens[0].token = 'svc_live_123'), /tokens\.json: tokens\.0\.token/],
    ['an unknown property', 'sandbox/settings.json', (s: any) => (s.pageSizes = 3), /settings\.json: .*Unrecognized key/],
    ['a failing-backup rule for an unknown database', 'sandbox/world.json', (w: any) => (w.backupOutcomes.db_gone = w.backupOutcomes.db_billing), /backupOutcomes: unknown database db_gone/],
    ['an artifact whose digest is not its metadata', 'artifacts/acme-orders.json', (m: any) => (m.sha256 = '0'.repeat(64)), /acme-orders\.json: sizeBytes\/sha256/],
    ['a list item that differs from its detail fixture', 'api/backups-list.json', (l: any) => (l.backupJobs[0].attempt = 3), /backups-list\.json: bj_0007 differs/],
  ])('refuses %s, naming the file', async (_what, file, edit, message) => {
    const dir = copyData(file, edit);
    const err = await loadSandboxData(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxDataError);
    expect((err as Error).message).toMatch(message);
  });

  it('refuses a directory without the layout', async () => {
    await expect(loadSandboxData('/nonexistent')).rejects.toThrow(/not a directory/);
    const empty = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-empty-'));
    dirs.push(empty);
    await expect(loadSandboxData(empty)).rejects.toThrow(/profile\.json: file not found/);
  });
});

import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR } from '../../src/sandbox/data-files.js';
import { loadSandboxData } from '../../src/sandbox/data-loader.js';
import { SandboxDataError } from '../../src/sandbox/data-reader.js';
import { api, raw, restoreBody, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of fixtures/ (api, sandbox, artifacts) with each edit applied to its JSON file. */
function copyData(edits: Record<string, (json: any) => void> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-data-'));
  dirs.push(dir);
  for (const sub of ['api', 'sandbox', 'artifacts']) cpSync(path.join(DEFAULT_DATA_DIR, sub), path.join(dir, sub), { recursive: true });
  for (const [file, edit] of Object.entries(edits)) {
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
    const dir = copyData({
      'sandbox/settings.json': (s) => {
        s.pageSize.perList.databases = 5;
      },
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
    [
      'a backup of an unknown database',
      'sandbox/world.json',
      (w: any) => (w.backupJobs[0].protectedDatabaseId = 'db_gone'),
      /world\.json: backup bj_0004: unknown database db_gone/,
    ],
    ['evidence without its backup job', 'sandbox/world.json', (w: any) => w.backupJobs.splice(1, 1), /evidence bj_0005: no such backup job/],
    ['a resource of an organization without a token', 'sandbox/tokens.json', (t: any) => t.tokens.splice(5, 1), /org_globex, which no token/],
    ['a token that is not svc_sandbox_<hex>', 'sandbox/tokens.json', (t: any) => (t.tokens[0].token = 'svc_live_123'), /tokens\.json: tokens\.0\.token/],
    ['an unknown property', 'sandbox/settings.json', (s: any) => (s.pageSizes = 3), /settings\.json: .*Unrecognized key/],
    [
      'a failing-backup rule for an unknown database',
      'sandbox/world.json',
      (w: any) => (w.backupOutcomes.db_gone = w.backupOutcomes.db_billing),
      /backupOutcomes: unknown database db_gone/,
    ],
    [
      'an artifact whose digest is not its metadata',
      'artifacts/acme-orders.json',
      (m: any) => (m.sha256 = '0'.repeat(64)),
      /acme-orders\.json: sizeBytes\/sha256/,
    ],
    [
      'the second artifact whose size is not its metadata',
      'artifacts/billing.json',
      (m: any) => (m.sizeBytes += 1),
      /billing\.json: sizeBytes\/sha256 \(71657, .*\) do not match artifacts\/billing\.pgdump \(71656, /,
    ],
    [
      'an artifact whose pg_dump version is not its header',
      'artifacts/billing.json',
      (m: any) => (m.pgDumpVersion = '16.4'),
      /billing\.json: pgDumpVersion\/archiveFormatVersion \(16\.4, 1\.14\) do not match the header of artifacts\/billing\.pgdump \(15\.\d+, 1\.14\)/,
    ],
    [
      'an artifact whose archive format version is not its header',
      'artifacts/acme-orders.json',
      (m: any) => (m.archiveFormatVersion = '1.15'),
      /acme-orders\.json: pgDumpVersion\/archiveFormatVersion/,
    ],
    ['metadata without the versions', 'artifacts/billing.json', (m: any) => delete m.pgDumpVersion, /billing\.json: pgDumpVersion: /],
    [
      'an archive file that is missing',
      'sandbox/settings.json',
      (s: any) => (s.artifacts.files.billing.file = 'artifacts/gone.pgdump'),
      /artifacts\/gone\.pgdump: file not found/,
    ],
    [
      'a default that names no artifact',
      'sandbox/settings.json',
      (s: any) => (s.artifacts.default = 'acme'),
      /settings\.json: artifacts\.default: no artifact named "acme" in sandbox\/settings\.json \(acme-orders, billing\)/,
    ],
    [
      'both artifact forms at once',
      'sandbox/settings.json',
      (s: any) => (s.artifact = { ...s.artifacts.files.billing, urlTtlSeconds: 60 }),
      /settings\.json: .*exactly one of the two/,
    ],
    [
      'a database assigned an unknown artifact',
      'sandbox/world.json',
      (w: any) => (w.artifactFiles.databases.db_billing = 'billing-v2'),
      /world\.json: artifactFiles\.databases\.db_billing: no artifact named "billing-v2"/,
    ],
    [
      'an artifact assignment for an unknown database',
      'sandbox/world.json',
      (w: any) => (w.artifactFiles.databases.db_gone = 'billing'),
      /artifactFiles\.databases: unknown database db_gone/,
    ],
    [
      'an artifact for a backup that has none',
      'sandbox/world.json',
      (w: any) => (w.artifactFiles.backupJobs = { bj_0006: 'billing' }),
      /artifactFiles\.backupJobs: bj_0006 has no artifact/,
    ],
    [
      'a backup completed before it started',
      'sandbox/world.json',
      (w: any) => (w.backupJobs[1].completedAt = '2026-11-19T01:00:00Z'),
      /world\.json: backup bj_0005: completedAt 2026-11-19T01:00:00Z precedes its startedAt/,
    ],
    [
      'a backup claimed before it was enqueued',
      'api/backups-list.json',
      (l: any) => (l.backupJobs[2].claimedAt = '2026-11-21T11:00:00Z'),
      /backups-list\.json: backup bj_0009: claimedAt .* precedes its enqueuedAt/,
    ],
    [
      'a completed backup without completedAt',
      'sandbox/world.json',
      (w: any) => delete w.backupJobs[1].completedAt,
      /world\.json: backup bj_0005 is completed but has no completedAt/,
    ],
    [
      'two completed backups of one database at the same completedAt',
      'sandbox/world.json',
      (w: any) =>
        w.backupJobs.push({
          ...w.backupJobs[0],
          id: 'bj_0010',
          artifact: { ...w.backupJobs[0].artifact, artifactKey: 'org_globex/db_ledger/bj_0010/dump.pgcustom' },
        }),
      /backups bj_0004 and bj_0010 of db_ledger both completed at 2026-11-18T23:00:41Z/,
    ],
    [
      'a retained window baseline without an artifact',
      'api/recovery-proof.json',
      (p: any) => (p.proof.baselineArtifact.backupJobId = 'bj_0006'),
      /window rw_0003: baseline bj_0006 is retained but has no artifact/,
    ],
    [
      'a list item that differs from its detail fixture',
      'api/backups-list.json',
      (l: any) => (l.backupJobs[0].attempt = 3),
      /backups-list\.json: bj_0007 differs/,
    ],
  ])('refuses %s, naming the file', async (_what, file, edit, message) => {
    const dir = copyData({ [file]: edit });
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

describe('which archive a completed backup serves', () => {
  /** getBackup's artifact digest, and the SHA-256 of what its presigned URL serves. */
  async function served(dir: string, backupJobId: (sb: TestSandbox) => Promise<string>) {
    const sb = await startTestSandbox({ dataDir: dir });
    try {
      const id = await backupJobId(sb);
      const backup = await raw(sb, 'GET', api(`/backups/${id}`));
      const restore = await raw(sb, 'POST', api('/restores'), { body: restoreBody(id) });
      const body = Buffer.from(await (await request(restore.json.execution.presignedS3Url)).body.arrayBuffer());
      return { reported: backup.json.artifact.checksumSha256, downloaded: createHash('sha256').update(body).digest('hex'), artifacts: sb.artifacts };
    } finally {
      await sb.stop();
    }
  }

  it("a backup's own assignment wins over its database's", async () => {
    const dir = copyData({ 'sandbox/world.json': (w) => (w.artifactFiles.backupJobs = { bj_0007: 'billing' }) });
    const r = await served(dir, async () => 'bj_0007');
    expect(r).toMatchObject({ reported: r.artifacts.billing!.sha256, downloaded: r.artifacts.billing!.sha256 });
  });

  it("a backup completed in the sandbox serves its database's archive", async () => {
    const dir = copyData({ 'sandbox/world.json': (w) => (w.artifactFiles.databases.db_orders = 'billing') });
    const r = await served(dir, async (sb) => {
      const { json } = await raw(sb, 'POST', api('/databases/db_orders/backups'), { body: {} });
      for (let i = 0; i < 4; i++) await raw(sb, 'GET', api(`/backups/${json.backupJobId}`));
      return json.backupJobId as string;
    });
    expect(r).toMatchObject({ reported: r.artifacts.billing!.sha256, downloaded: r.artifacts.billing!.sha256 });
  });

  it('the older single "artifact" setting still loads: every completed backup serves that one archive', async () => {
    const dir = copyData({
      'sandbox/settings.json': (s) => {
        s.artifact = { ...s.artifacts.files['acme-orders'], urlTtlSeconds: s.artifacts.urlTtlSeconds };
        delete s.artifacts;
      },
      'sandbox/world.json': (w) => delete w.artifactFiles,
    });
    const r = await served(dir, async () => 'bj_0005');
    expect(Object.keys(r.artifacts)).toEqual(['default']);
    expect(r).toMatchObject({ reported: r.artifacts.default!.sha256, downloaded: r.artifacts.default!.sha256 });
  });

  it('refuses an archive that is not a pg_dump archive, even with matching size and digest', async () => {
    const dir = copyData();
    const fake = Buffer.from('not a dump\n');
    writeFileSync(path.join(dir, 'artifacts/billing.pgdump'), fake);
    const metaPath = path.join(dir, 'artifacts/billing.json');
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    writeFileSync(metaPath, JSON.stringify({ ...meta, sizeBytes: fake.length, sha256: createHash('sha256').update(fake).digest('hex') }));
    await expect(loadSandboxData(dir)).rejects.toThrow(/artifacts\/billing\.pgdump: not a pg_dump archive \(no PGDMP header\)/);
  });
});

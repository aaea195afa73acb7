/**
 * A DSN password that is a common word (issue 17, item 5): `postgres`, `true`, `1`, `null` and `a`
 * appear in output for reasons of their own (postgresql://, JSON booleans and nulls, digits, any
 * word). Scrubbing the password as a plain substring corrupted `--json` (`"completedBackup":
 * [redacted]`), the redacted target (`[redacted]ql://...`), the dry-run plan and failure receipts.
 * The password is scrubbed where it stands as a credential, and only there: machine output parses,
 * agrees with the receipt file, and names the target exactly.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { quoteIdent } from '../support/seed.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/common-word-passwords.test.ts skipped: ${skip}`);

const PASSWORDS = ['postgres', 'true', '1', 'null', 'a'];

describe.skipIf(!!skip)('a DSN password that is a common word never corrupts output', () => {
  const h = useRestoreHarness();
  beforeAll(async () => {
    for (const pw of PASSWORDS) {
      await h.cluster.psql(`CREATE ROLE ${quoteIdent(`pw_${pw}`)} LOGIN CREATEDB PASSWORD '${pw}'`);
    }
  });

  const user = (pw: string) => `pw_${pw}`;
  const database = (pw: string, what: string) => `pwdb_${pw}_${what}`;
  const dsn = (pw: string, db: string) => `postgresql://${user(pw)}:${encodeURIComponent(pw)}@127.0.0.1:${h.cluster.port}/${db}`;
  const redacted = (pw: string, db: string) => `postgresql://${user(pw)}@127.0.0.1:${h.cluster.port}/${db}`;

  async function create(pw: string, what: string, extra: string[]) {
    const db = database(pw, what);
    await h.dropDatabase(db);
    const workDir = await h.workDir();
    const receiptPath = join(workDir, '..', `${db}.receipt.json`);
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receiptPath, '--json', ...extra], {
      env: { SVC_TARGET_DSN: dsn(pw, db) },
    });
    return { ...r, db, receiptPath };
  }

  /** The password in any credential position: a URI's userinfo or a password= parameter. */
  function expectNoCredential(pw: string, ...texts: string[]) {
    for (const text of texts) {
      expect(text).not.toContain(`:${encodeURIComponent(pw)}@`);
      expect(text).not.toContain(`:${pw}@`);
      expect(text).not.toMatch(new RegExp(`password\\s*=\\s*'?${pw}\\b`, 'i'));
    }
  }

  for (const pw of PASSWORDS) {
    describe(`password "${pw}"`, () => {
      it('restore create --json: the document parses, equals the receipt file, and names the target exactly', async () => {
        const r = await create(pw, 'ok', []);
        expect(r.code, r.stderr).toBe(0);
        const doc = JSON.parse(r.stdout);
        const receipt = JSON.parse(await readFile(r.receiptPath, 'utf8'));
        expect(doc.execution.receipt).toEqual(receipt);
        expect(receipt.targetRedactedDsn).toBe(redacted(pw, r.db));
        expect(doc.restoreJob.proof).toEqual({ completedBackup: true, verifiedRestore: false, provenRecoverability: false });
        expect(r.stdout).not.toContain('[redacted]');
        expect(JSON.stringify(receipt)).not.toContain('[redacted]');
        // Progress on stderr names the target as it is.
        expect(r.stderr).toContain(`pg_restore into ${redacted(pw, r.db)}`);
        expect(r.stderr).not.toContain('[redacted]');
        expectNoCredential(pw, r.stdout, r.stderr, JSON.stringify(receipt));
      });

      it('--dry-run --json: the plan parses and names the target exactly', async () => {
        h.api.use(http.get('*/api/v1/profile', () => HttpResponse.json(fixture('profile'))));
        const db = database(pw, 'dry');
        await h.dropDatabase(db);
        const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir(), '--dry-run', '--json'], {
          env: { SVC_TARGET_DSN: dsn(pw, db) },
        });
        expect(r.code, r.stderr).toBe(0);
        const plan = JSON.parse(r.stdout);
        expect(plan.targetRedactedDsn).toBe(redacted(pw, db));
        expect(plan.dryRun).toBe(true);
        expect(r.stdout).not.toContain('[redacted]');
        expectNoCredential(pw, r.stdout, r.stderr);
      });

      it('a failed restore: the --json error and the failure receipt parse and name the target exactly', async () => {
        h.coords.expectedSha256 = 'f'.repeat(64);
        const r = await create(pw, 'failed', []);
        expect(r.code).toBe(10);
        const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!);
        expect(error.error.code).toBe('artifact_integrity');
        const receipt = JSON.parse(await readFile(r.receiptPath, 'utf8'));
        expect(receipt).toMatchObject({ outcome: 'failed', targetRedactedDsn: redacted(pw, r.db), failure: { phase: 'download', exitCode: 10 } });
        expect(JSON.stringify(receipt)).not.toContain('[redacted]');
        expectNoCredential(pw, r.stdout, r.stderr, JSON.stringify(receipt));
      });
    });
  }

  it('a password inside --target still never reaches output, however the output quotes the target', async () => {
    const db = 'pwdb_argv';
    await h.dropDatabase(db);
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', await h.workDir(), '--target', dsn('postgres', db)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('visible to other local users');
    expectNoCredential('postgres', r.stdout, r.stderr);
  });
});

/**
 * `restore create --receipt FILE` (cli-contract 7.15, issue 22 items 5 and 9): a symbolic link at
 * FILE is refused with exit 2 before anything is created, its target untouched; a receipt that
 * cannot be written is exit 2 naming the path and the cause, after the result is on stdout, never
 * "Unexpected failure ... a bug in svc"; for a failed restore, a warning beside the restore's own error. Against a real PostgreSQL (test/support/restore-harness.ts).
 */
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/receipt-file.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('restore create --receipt FILE: written safely, or exit 2 naming it', () => {
  const h = useRestoreHarness();

  it('a symbolic link at FILE: exit 2 naming it before any restore job exists; the target keeps its content and mode', async () => {
    const workDir = await h.workDir();
    const victim = join(workDir, 'victim');
    writeFileSync(victim, 'precious\n');
    chmodSync(victim, 0o600);
    const receipt = join(workDir, 'receipt.json');
    symlinkSync(victim, receipt);
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receipt], {
      env: { SVC_TARGET_DSN: h.dsn('receipt_link', true) },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: ${receipt} is a symbolic link; svc does not write through one (its target was left untouched).`);
    expect(h.createRestoreRequests()).toHaveLength(0);
    expect(await h.databaseExists('receipt_link')).toBe(false);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
  });

  it('a receipt that cannot be written (a directory in the way): the --json result first, then exit 2 naming the path and the cause', async () => {
    const workDir = await h.workDir();
    const receipt = join(workDir, 'receipt.json');
    mkdirSync(receipt);
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receipt, '--json'], {
      env: { SVC_TARGET_DSN: h.dsn('receipt_blocked', true) },
    });
    expect(r.code, r.stderr).toBe(2);
    // The restore happened and says so: the whole document is on stdout.
    const doc = JSON.parse(r.stdout) as { execution: { verified: boolean; receipt: { outcome: string } } };
    expect(doc.execution).toMatchObject({ verified: true, receipt: { outcome: 'restored' } });
    expect(await h.databaseExists('receipt_blocked')).toBe(true);
    const error = (JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!) as { error: { code: string; message: string } }).error;
    expect(error).toMatchObject({ code: 'file_not_written', message: `Could not write ${receipt}: a directory is in the way (EISDIR).` });
    expect(r.stderr).not.toContain('bug in svc');
    await h.dropDatabase('receipt_blocked');
  });

  it("a failed restore whose receipt cannot be written keeps the restore's own exit code and error, and warns naming the path", async () => {
    const workDir = await h.workDir();
    const receipt = join(workDir, 'receipt.json');
    mkdirSync(receipt);
    // The service hands out a digest the artifact does not have: exit 10.
    h.coords.expectedSha256 = 'f'.repeat(64);
    const r = await h.cli(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receipt], {
      env: { SVC_TARGET_DSN: h.dsn('receipt_failed', true) },
    });
    expect(r.code, r.stderr).toBe(10);
    expect(r.stderr).toContain(`warning: Could not write ${receipt}: a directory is in the way (EISDIR).`);
    expect(r.stderr).not.toContain('bug in svc');
  });
});

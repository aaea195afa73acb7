/**
 * The pg_restore a restore uses (cli-contract 7, step 0): the newest one on the machine that reads
 * the archive. PATH's comes first, but where it is too old for the archive's format, svc takes one
 * from the install directories (/usr/lib/postgresql/<major>/bin, newest first) that reads it. The
 * built CLI, a real cluster, the real seed dump. Skips without a PostgreSQL server, except under CI.
 */
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { findPgBinDir, pgSkipReason } from '../support/pg-cluster.js';
import { BACKUP_ID, useRestoreHarness } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/pg-restore-choice.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('which pg_restore restores the archive', () => {
  const h = useRestoreHarness({ built: true });
  let oldDir = '';
  beforeAll(async () => {
    // A pg_restore 11 first on PATH: it says so for --version and, like the real one, cannot read
    // an archive of format 1.14 (pg_dump 12 to 15). Used for anything, it fails the restore.
    oldDir = join(h.scratch, 'old-pg-restore');
    await mkdir(oldDir);
    await writeFile(
      join(oldDir, 'pg_restore'),
      [
        '#!/bin/sh',
        `echo "$*" >> '${join(oldDir, 'calls.log')}'`,
        '[ "$1" = "--version" ] && { echo "pg_restore (PostgreSQL) 11.22"; exit 0; }',
        'echo "pg_restore: error: unsupported version (1.14) in file header" >&2',
        'exit 1',
        '',
      ].join('\n'),
    );
    await chmod(join(oldDir, 'pg_restore'), 0o755);
  });

  it("PATH's pg_restore 11 cannot read the archive; /usr/lib/postgresql/<major>/bin/pg_restore can: the restore succeeds with it, and the receipt says which", async () => {
    const env = h.env();
    const workDir = await h.workDir();
    const receipt = join(workDir, '..', `receipt-${Date.now()}.json`);
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--receipt', receipt, '--json'], {
      env: { PATH: `${oldDir}:${env.PATH}`, SVC_TARGET_DSN: h.dsn('chosen_reader', true) },
    });
    expect(r.code, r.stderr).toBe(0);
    const installed = (await execa(join(findPgBinDir()!, 'pg_restore'), ['--version'])).stdout.trim();
    const { execution } = JSON.parse(r.stdout);
    expect(execution.receipt.pgRestoreVersion).toBe(installed);
    expect(installed).toMatch(/^pg_restore \(PostgreSQL\) 1[2-9]\./);
    // Only asked its version: never given the archive.
    const calls = (await execa('cat', [join(oldDir, 'calls.log')])).stdout.split('\n');
    expect(
      calls.every((c) => c === '--version'),
      calls.join('\n'),
    ).toBe(true);
    expect(await h.snapshot('chosen_reader')).toEqual(h.source);
    expect(await readdir(workDir)).toEqual([]);
  });

  it("with PATH's pg_restore able to read it, PATH's is the one used", async () => {
    const workDir = await h.workDir();
    const r = await h.built(['restore', 'create', '--backup', BACKUP_ID, '--work-dir', workDir, '--json'], {
      env: { SVC_TARGET_DSN: h.dsn('path_reader', true) },
    });
    expect(r.code, r.stderr).toBe(0);
    // The harness's PATH shim, which logs each restore, ran it.
    expect(await h.pgRestoreRuns()).toHaveLength(1);
    expect(JSON.parse(r.stdout).execution.receipt.pgRestoreVersion).toBe((await execa(h.realPgRestore, ['--version'])).stdout.trim());
  });
});

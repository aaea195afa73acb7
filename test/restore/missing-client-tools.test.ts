/**
 * `restore create` on a machine without the PostgreSQL client tools (cli-contract 7.2): exit 11 naming
 * every tool that is missing, pg_restore above all ("pg_restore was not found" is what a user searches
 * for); it used to name only psql when both were missing.
 *
 * This machine has them under /usr/lib/postgresql: for one run only, the built CLI runs in a private
 * mount namespace (`unshare --mount`, as root) where a tmpfs hides that directory, with a PATH of one
 * directory holding the tools the case keeps. svc's own code is not touched.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/built-cli.js';
import { findPgBinDir } from '../support/pg-cluster.js';
import { mountNamespaceSkipReason } from '../support/mount-namespace.js';

const skip = mountNamespaceSkipReason();
if (skip) console.warn(`test/restore/missing-client-tools.test.ts skipped: ${skip}`);

const PG_RESTORE_MISSING = 'pg_restore was not found on PATH or in the usual PostgreSQL install directories.';
const PSQL_MISSING = 'psql was not found on PATH.';

describe.skipIf(!!skip)('restore create without the client tools names each missing one', { timeout: 60_000 }, () => {
  let root = '';
  beforeAll(async () => {
    await ensureBuilt();
    root = mkdtempSync(join(tmpdir(), 'svc-missing-tools-'));
  }, 300_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function restoreWith(tools: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const bin = mkdtempSync(join(root, 'bin-'));
    for (const tool of tools) copyFileSync(join(findPgBinDir()!, tool), join(bin, tool));
    if (tools.length) await execa('chmod', ['755', ...tools.map((t) => join(bin, t))]);
    const home = mkdtempSync(join(root, 'home-'));
    const env = [
      'env',
      '-i',
      `PATH=${bin}`,
      `HOME=${home}`,
      `TMPDIR=${home}`,
      'SVC_API_KEY=svc_test_missing_tools_0123456789',
      'SVC_BASE_URL=http://127.0.0.1:9',
    ];
    const r = await execa(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mount -t tmpfs svc-test-no-postgresql /usr/lib/postgresql && exec "$@"',
        'sh',
        ...env,
        process.execPath,
        BIN,
        'restore',
        'create',
        '--backup',
        'bj_0007',
        '--target',
        'postgresql://app@127.0.0.1:1/restored',
        '--work-dir',
        home,
      ],
      { extendEnv: false, env: { PATH: process.env.PATH }, reject: false, stdin: 'ignore' },
    );
    return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  }

  it('neither pg_restore nor psql: exit 11 naming both, before any request', async () => {
    const r = await restoreWith([]);
    expect(r.code, r.stderr).toBe(11);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: ${PG_RESTORE_MISSING} ${PSQL_MISSING}`);
    expect(r.stderr).toContain('apt-get install postgresql-client');
  });

  it('only pg_restore missing: it alone is named', async () => {
    const r = await restoreWith(['psql']);
    expect(r.code, r.stderr).toBe(11);
    expect(r.stderr).toContain(`error: ${PG_RESTORE_MISSING}`);
    expect(r.stderr).not.toContain('psql was not found');
  });

  it('only psql missing: it alone is named', async () => {
    const r = await restoreWith(['pg_restore']);
    expect(r.code, r.stderr).toBe(11);
    expect(r.stderr).toContain(`error: ${PSQL_MISSING}`);
    expect(r.stderr).not.toContain('pg_restore was not found');
  });
});

/**
 * The machine as it is (the tools under /usr/lib/postgresql, none on PATH): svc finds a pg_restore
 * off PATH, but psql it runs from PATH, so the run cannot go on. Both tools are named, not psql alone
 * (cli-contract 4, v5), with where the pg_restore was and the PATH line that brings both in.
 */
describe('restore create with neither tool on PATH, the tools installed elsewhere', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('exit 11 naming psql and pg_restore, and the directory to put on PATH', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-off-path-'));
    try {
      const r = await execa(
        process.execPath,
        [BIN, 'restore', 'create', '--backup', 'bj_0007', '--target', 'postgresql://app@127.0.0.1:1/restored', '--work-dir', home],
        {
          extendEnv: false,
          env: { PATH: home, HOME: home, TMPDIR: home, SVC_API_KEY: 'svc_test_missing_tools_0123456789', SVC_BASE_URL: 'http://127.0.0.1:9' },
          reject: false,
          stdin: 'ignore',
        },
      );
      expect(r.exitCode, r.stderr).toBe(11);
      expect(r.stderr).toMatch(/^error: .*\bpsql\b/m);
      expect(r.stderr).toMatch(/^error: .*\bpg_restore\b/m);
      const dir = findPgBinDir()!;
      if (!process.env.PATH?.split(':').includes(dir)) expect(r.stderr).toContain(`export PATH=${dir}:"$PATH"`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

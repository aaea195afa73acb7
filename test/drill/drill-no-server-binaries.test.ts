/**
 * A machine without PostgreSQL server binaries (cli-contract 9, step 2): `--scratch auto` is exit 11
 * before any request, saying how to install them or to drill on a server of one's own with
 * `--scratch <dsn>`, which then works on that same machine.
 *
 * This machine has Debian's server binaries under /usr/lib/postgresql (and symlinks to them in
 * /usr/local/bin). For one run only, the built CLI runs in a private mount namespace (`unshare
 * --mount`, as root) where a tmpfs hides /usr/lib/postgresql; the real pg_restore and psql are copied
 * to a directory first on PATH, so the client tools are still there. svc's own code is not touched.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSecrets, SVC } from '../e2e/helpers.js';
import { DrillE2e, processesIn } from '../support/drill-e2e.js';
import { findPgBinDir, type PgCluster } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { mountNamespaceSkipReason } from '../support/mount-namespace.js';

const skip = mountNamespaceSkipReason();
if (skip) console.warn(`test/drill/drill-no-server-binaries.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('no PostgreSQL server binaries on the machine', { timeout: 120_000 }, () => {
  const h = new DrillE2e();
  let cluster: PgCluster;
  let clientBin = '';
  let hidden: (args: string[], env?: Record<string, string>) => Promise<{ code: number; stdout: string; stderr: string }>;

  beforeAll(async () => {
    const [started, pg] = await Promise.allSettled([h.start(), workerCluster()]);
    if (pg.status === 'fulfilled') cluster = pg.value;
    for (const r of [started, pg]) if (r.status === 'rejected') throw r.reason;
    clientBin = mkdtempSync(join(tmpdir(), 'svc-drill-clients-'));
    for (const tool of ['pg_restore', 'psql']) copyFileSync(join(findPgBinDir()!, tool), join(clientBin, tool));
    await execa('chmod', ['755', join(clientBin, 'pg_restore'), join(clientBin, 'psql')]);

    /** The built CLI with /usr/lib/postgresql hidden by a tmpfs, in a mount namespace of its own. */
    hidden = async (args, env = {}) => {
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
          process.execPath,
          SVC,
          ...args,
        ],
        { env: h.sb.env('drill', { PATH: `${clientBin}:${process.env.PATH}`, ...env }), extendEnv: false, reject: false, stdin: 'ignore', timeout: 120_000 },
      );
      const out = { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
      expectNoSecrets(`${out.stdout}\n${out.stderr}`, [cluster.password]);
      return out;
    };
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([cluster?.stop(), h.stop()]);
    if (clientBin) rmSync(clientBin, { recursive: true, force: true });
  });

  it('the namespace hides the server binaries and keeps the client tools', async () => {
    const r = await execa(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mount -t tmpfs svc-test-no-postgresql /usr/lib/postgresql && ls -A /usr/lib/postgresql; command -v initdb postgres pg_ctl; pg_restore --version; psql --version',
      ],
      { env: { PATH: `${clientBin}:${process.env.PATH}` }, extendEnv: false, reject: false },
    );
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^pg_restore \(PostgreSQL\) \d+/), expect.stringMatching(/^psql \(PostgreSQL\) \d+/)]);
    // Outside it, nothing changed.
    expect(readdirSync('/usr/lib/postgresql').length).toBeGreaterThan(0);
  });

  it('--scratch auto is exit 11 before any request, saying how to install them or to use --scratch <dsn>', async () => {
    const before = h.sb.requests.length;
    const work = h.workDir();
    const r = await hidden(['restore', 'drill', 'db_orders', '--work-dir', work]);
    expect(r.code).toBe(11);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toContain(
      'error: No PostgreSQL server binaries (initdb, pg_ctl, postgres) were found for the scratch cluster: not in pg_config --bindir, /usr/lib/postgresql/*/bin, /usr/local/pgsql/bin, Homebrew, Postgres.app or PATH.',
    );
    expect(r.stderr).toContain(
      'Install them (Debian/Ubuntu: sudo apt-get install postgresql; macOS: brew install postgresql@17), point --pg-bindir (or SVC_PG_BINDIR) at them, or drill on a server of yours with --scratch postgresql://user@host/postgres.',
    );
    expect(h.sb.requests.length).toBe(before);
    expect(readdirSync(work)).toEqual([]);
    expect(processesIn(work)).toEqual([]);
  });

  it('a dry run says the same: it would not be able to start', async () => {
    const before = h.sb.requests.length;
    const r = await hidden(['restore', 'drill', '--all', '--dry-run', '--work-dir', h.workDir()]);
    expect(r.code).toBe(11);
    expect(r.stderr).toContain('error: No PostgreSQL server binaries (initdb, pg_ctl, postgres) were found for the scratch cluster');
    expect(h.sb.requests.length).toBe(before);
  });

  it('--scratch <dsn> drills on the same machine all the same', async () => {
    const work = h.workDir();
    const r = await hidden(['restore', 'drill', 'db_orders', '--scratch', cluster.dsn('postgres'), '--work-dir', work, '--json'], {
      PGPASSWORD: cluster.password,
    });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout).drill;
    expect(doc).toMatchObject({ scratch: 'dsn', passed: 1, failed: 0 });
    expect(doc.databases[0].receipt.pgRestoreVersion).toMatch(/^pg_restore \(PostgreSQL\) \d+/);
    expect(await cluster.psql("SELECT count(*) FROM pg_database WHERE datname LIKE 'svc\\_drill\\_%'")).toBe('0');
    expect(readdirSync(work)).toEqual([]);
  });
});

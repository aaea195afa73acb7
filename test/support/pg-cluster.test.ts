import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'pg-connection-string';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientEnv, findPgBinDir, PgClusterError, pgSkipReason, startCluster, type PgCluster } from './pg-cluster.js';
import { describeDatabase, dumpDatabase, quoteIdent, readDumpHeader, seedDatabase, SEEDS } from './seed.js';
import { FIXTURES_DIR } from './fixtures.js';
import { processesMentioning } from './restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/devtools/pg-cluster.test.ts skipped: ${skip}`);

test('under CI the PostgreSQL tests never skip, whatever is installed', () => {
  expect(pgSkipReason({ CI: 'true' })).toBeUndefined();
  expect(pgSkipReason({ CI: '1' })).toBeUndefined();
});

/** The seed's shape, as fixtures/pg/seed.sql promises it. */
const SEED_SHAPE = {
  tables: { customers: 1000, orders: 5000 },
  sequences: { customers_id_seq: 1000, invoice_number_seq: 105000, orders_id_seq: 5000 },
  indexes: ['customers_email_key', 'customers_pkey', 'orders_customer_id_idx', 'orders_invoice_number_key', 'orders_pkey', 'orders_placed_at_idx'],
  views: ['customer_order_totals'],
};

/** The billing seed's shape, as fixtures/pg/billing-seed.sql promises it. */
const BILLING_SHAPE = {
  tables: { accounts: 400, invoices: 2400, payments: 1800, plans: 4 },
  sequences: { accounts_id_seq: 400, billing_invoice_no_seq: 702400, invoices_id_seq: 2400, payments_id_seq: 1800 },
  indexes: [
    'account_balances_account_id_idx',
    'accounts_account_code_key',
    'accounts_pkey',
    'invoices_account_id_idx',
    'invoices_invoice_no_key',
    'invoices_open_issued_at_idx',
    'invoices_pkey',
    'payments_invoice_id_idx',
    'payments_pkey',
    'plans_code_key',
    'plans_pkey',
  ],
  views: ['account_balances'],
};

function processGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

describe.skipIf(!!skip)('startCluster (one shared cluster; the last test stops it)', () => {
  // Characters that need URI encoding, to prove dsn() encodes them.
  const password = `p@ss:w/rd%${randomBytes(6).toString('hex')}`;
  const logs: string[] = [];
  let cluster: PgCluster;
  let work: string;

  const psqlAs = (env: Record<string, string>, sql = 'SELECT 1') =>
    // -w and no stdin: a missing password must fail, not wait at a prompt.
    execa(
      join(cluster.binDir, 'psql'),
      ['-X', '-w', '-A', '-t', '-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', 'postgres', '-c', sql],
      {
        env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 20_000,
      },
    );

  const pgRestore = (database: string, file: string) =>
    execa(
      join(cluster.binDir, 'pg_restore'),
      ['--no-owner', '--no-privileges', '--exit-on-error', '-h', cluster.host, '-p', String(cluster.port), '-U', 'postgres', '-d', database, file],
      {
        env: clientEnv(cluster),
        extendEnv: false,
        stdin: 'ignore',
        timeout: 60_000,
      },
    );

  /** Every row of both tables, in key order, in UTC: equal digests mean equal data. */
  /** md5 of every row of the tables (and materialized views) named, in a stable order. */
  const contentDigest = (database: string, relations = ['customers', 'orders']) =>
    cluster.psql(
      `SET TIME ZONE 'UTC';
       SELECT md5(${relations.map((r) => `(SELECT string_agg(x::text, E'\\n' ORDER BY x::text) FROM ${quoteIdent(r)} x)`).join(" || '|' || ")})`,
      database,
    );

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'svc-pgtest-'));
    cluster = await startCluster({ password, log: (l) => logs.push(l) });
  });

  afterAll(async () => {
    await cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test('listens on 127.0.0.1 only, SCRAM everywhere, no trust rule, socket and data in its own temp dir', async () => {
    expect(cluster).toMatchObject({ host: '127.0.0.1', user: 'postgres', password });
    expect(cluster.port).toBeGreaterThan(0);
    expect(await cluster.psql('SHOW listen_addresses')).toBe('127.0.0.1');
    expect(await cluster.psql('SHOW port')).toBe(String(cluster.port));
    expect(await cluster.psql('SHOW unix_socket_directories')).toBe(dirname(cluster.dataDir));
    expect(await cluster.psql("SELECT count(*) FROM pg_hba_file_rules WHERE auth_method <> 'scram-sha-256' OR error IS NOT NULL")).toBe('0');
    expect(await cluster.psql("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname = 'postgres'")).toBe('t');
    expect(await cluster.psql('SHOW fsync')).toBe('off');
    expect(dirname(dirname(cluster.dataDir))).toBe(tmpdir());
    if (process.getuid?.() === 0) {
      // As root the server runs as the postgres OS user; initdb would refuse root.
      expect(statSync(cluster.dataDir).uid).not.toBe(0);
      expect(await cluster.psql("SELECT pg_read_file('postmaster.pid') IS NOT NULL")).toBe('t');
    }
    expect(existsSync(join(dirname(cluster.dataDir), 'pwfile'))).toBe(false);
  });

  test("runs the machine's server by default, names its major, and keeps the client tools in binDir", async () => {
    expect(cluster.serverBinDir).toBe(findPgBinDir());
    expect(cluster.binDir).toBe(findPgBinDir());
    const pid = Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(readlinkSync(`/proc/${pid}/exe`)).toBe(realpathSync(join(cluster.serverBinDir, 'postgres')));
    expect(cluster.serverMajor).toBe(Math.floor(Number(await cluster.psql('SHOW server_version_num')) / 10_000));
    const pgDump = (await execa(join(cluster.binDir, 'pg_dump'), ['--version'])).stdout;
    expect(pgDump).toMatch(new RegExp(`\\(PostgreSQL\\) ${cluster.serverMajor}\\.`));
  });

  test('serverBinDir without initdb, pg_ctl and postgres is refused before anything starts', async () => {
    // A bin dir of client tools only, as a machine with postgresql-client alone has.
    const clientOnly = mkdtempSync(join(tmpdir(), 'svc-pgbin-'));
    try {
      const err = await startCluster({ serverBinDir: clientOnly }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PgClusterError);
      expect((err as Error).message).toBe(`${clientOnly} lacks the server binaries initdb, pg_ctl, postgres`);
    } finally {
      rmSync(clientOnly, { recursive: true, force: true });
    }
  });

  test('dsn() builds postgresql:// URLs with and without the encoded password', () => {
    expect(cluster.dsn('acme')).toBe(`postgresql://postgres@127.0.0.1:${cluster.port}/acme`);
    const withPw = cluster.dsn('my db', true);
    expect(withPw).not.toContain(password);
    const parsed = parse(withPw);
    expect(parsed).toMatchObject({ user: 'postgres', password, host: '127.0.0.1', port: String(cluster.port), database: 'my db' });
  });

  test('accepts the password over TCP; rejects a wrong or missing one', async () => {
    const env = clientEnv(cluster);
    const ok = await psqlAs(env, 'SELECT current_user');
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout.trim()).toBe('postgres');

    const wrong = await psqlAs({ ...env, PGPASSWORD: `${password}x` });
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stderr).toContain('password authentication failed for user "postgres"');

    const { PGPASSWORD: _, ...noPassword } = env;
    const none = await psqlAs({ ...noPassword, PGPASSFILE: '/dev/null' });
    expect(none.exitCode).not.toBe(0);
    expect(none.stderr).toMatch(/no password supplied/);
  });

  test('psql() failures name the database and the error, never the password', async () => {
    const err = await cluster.psql('SELECT no_such_column', 'postgres').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PgClusterError);
    const message = (err as Error).message;
    expect(message).toMatch(/psql on database "postgres" \(127\.0\.0\.1:\d+\) failed/);
    expect(message).toContain('no_such_column');
    expect(message).not.toContain(password);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain(password);
  });

  test('seed, describe, pg_dump -Fc, and a pg_restore of the dump describes and digests the same', async () => {
    await seedDatabase(cluster, 'acme');
    const source = await describeDatabase(cluster, 'acme');
    expect(source).toEqual(SEED_SHAPE);

    const file = join(work, 'acme.pgdump');
    await dumpDatabase(cluster, 'acme', file);
    expect(readFileSync(file).subarray(0, 5).toString()).toBe('PGDMP');
    const header = await readDumpHeader(file);
    expect(header.archiveFormatVersion).toMatch(/^1\.\d+$/);
    expect(await cluster.psql('SHOW server_version')).toMatch(new RegExp(`^${header.pgDumpVersion.replaceAll('.', '\\.')}`));

    await cluster.psql(`CREATE DATABASE ${quoteIdent('acme copy')} TEMPLATE template0`);
    await pgRestore('acme copy', file);
    expect(await describeDatabase(cluster, 'acme copy')).toEqual(source);
    expect(await contentDigest('acme copy')).toBe(await contentDigest('acme'));
  });

  test('the seed is deterministic: a second seeding has identical content', async () => {
    await seedDatabase(cluster, 'acme_again');
    expect(await contentDigest('acme_again')).toBe(await contentDigest('acme'));
  });

  test('the committed fixture archive restores to exactly the seed database', async () => {
    await cluster.psql('CREATE DATABASE fixture_copy TEMPLATE template0');
    await pgRestore('fixture_copy', join(FIXTURES_DIR, 'artifacts', 'acme-orders.pgdump'));
    expect(await describeDatabase(cluster, 'fixture_copy')).toEqual(SEED_SHAPE);
    expect(await contentDigest('fixture_copy')).toBe(await contentDigest('acme'));
  });

  test('the committed billing archive restores to exactly a fresh billing seed, materialized view data included', async () => {
    await seedDatabase(cluster, 'billing', SEEDS.billing.sqlPath);
    expect(await describeDatabase(cluster, 'billing')).toEqual(BILLING_SHAPE);
    await cluster.psql('CREATE DATABASE billing_copy TEMPLATE template0');
    await pgRestore('billing_copy', join(FIXTURES_DIR, 'artifacts', 'billing.pgdump'));
    expect(await describeDatabase(cluster, 'billing_copy')).toEqual(BILLING_SHAPE);
    const relations = ['plans', 'accounts', 'invoices', 'payments', 'account_balances'];
    expect(await contentDigest('billing_copy', relations)).toBe(await contentDigest('billing', relations));
    expect(await cluster.psql('SELECT count(*) FROM account_balances WHERE balance <> 0', 'billing_copy')).not.toBe('0');
  });

  test('a failed start names the step, carries the server log tail, hides the password and cleans up', async () => {
    const lines: string[] = [];
    const err = await startCluster({ password, settings: { shared_buffers: 'lots' }, log: (l) => lines.push(l) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PgClusterError);
    const message = (err as PgClusterError).message;
    expect(message).toMatch(/pg_ctl start failed on 127\.0\.0\.1:\d+/);
    expect((err as PgClusterError).logTail).toContain('invalid value for parameter "shared_buffers"');
    expect(message).toContain('--- server log');
    expect(message).not.toContain(password);
    // Inside a vitest run the data dir is a copy of the run's initdb'd one (pg-run-setup.ts), else initdb's.
    const dataDir = /^(?:initdb|copying the run's initdb'd data dir to) (\S+)/.exec(lines[0] ?? '')?.[1];
    expect(dataDir).toBeDefined();
    expect(existsSync(dirname(dataDir!))).toBe(false);
    expect(processesMentioning(dataDir!)).toEqual([]);
  });

  // Last on purpose: it stops the shared cluster (afterAll's stop() is then a no-op).
  test('stop() shuts the postmaster down, leaves no process of its data dir and removes the temp dir', async () => {
    const pid = Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(processGone(pid)).toBe(false);
    expect(processesMentioning(cluster.dataDir).length).toBeGreaterThan(0);

    await cluster.stop();
    expect(processGone(pid)).toBe(true);
    expect(processesMentioning(cluster.dataDir)).toEqual([]);
    expect(existsSync(dirname(cluster.dataDir))).toBe(false);
    await cluster.stop();
  });
});

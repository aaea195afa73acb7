/**
 * Real parts for the restore engine tests: a throwaway PostgreSQL cluster with the seed database,
 * a real `pg_dump -Fc` artifact of it served presigned-style by the artifact server, the API answered
 * by msw handlers over loopback, and a `pg_restore` PATH shim that logs every restore it runs.
 * One harness per test file (beforeAll/afterAll).
 *
 * The server is the machine's (Debian's PostgreSQL 15) unless SVC_TEST_PG_BINDIR names the bin
 * directory of another major's server binaries (tools/pg-majors.mjs prints them): the same tests
 * then run against that server, with the machine's client tools.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { http, HttpResponse } from 'msw';
import { startCluster, type PgCluster } from './pg-cluster.js';
import { workerCluster } from './worker-cluster.js';
import { artifactInfo, describeDatabase, dumpDatabase, quoteIdent, seedDatabase, SEED_DATABASE, type ArtifactInfo, type DatabaseDescription } from './seed.js';
import { startArtifactServer, type ArtifactRequest, type ArtifactServer } from './artifact-server.js';
import { fixture, FIXTURES_DIR } from './fixtures.js';
import { LoopbackServer } from './loopback-server.js';
import { ensureBuilt, sharedCacheHome, spawnSvc } from './built-cli.js';
import { runCli, type CliRun, type RunOptions } from './run-cli.js';
import { expectNoSecretsLeft, leaksIn, needles, type Secrets } from './secret-scan.js';

/** Distinctive secrets, so every output can be searched for them. */
export const API_TOKEN = 'svc_test_RESTOREPG_5d1f0c3b9a7e42c08e7d1a2b3c4d5e6f';
export const LOCK_TOKEN = 'lock_RESTOREPG_locktoken_8b2e6f4a1c9d77';
/** ':' and '@' need .pgpass escaping and URI encoding: both paths are exercised. */
export const DSN_PASSWORD = 'Dsn:Pw@RESTOREPG_3c7a91e0';
export const BACKUP_ID = 'bj_x';

export const SOURCE_DB = SEED_DATABASE;

/** Server binaries of another major for the restore tests (tools/pg-majors.mjs), or undefined for the machine's. */
export const SERVER_BINDIR_ENV = 'SVC_TEST_PG_BINDIR';

/** The committed seed archive (pg_dump 15 of a PostgreSQL 15 server, same seed). */
export const SEED_FIXTURE = join(FIXTURES_DIR, 'artifacts', 'acme-orders.pgdump');

type Mode = 'new_database' | 'in_place';

/** Coordinates the createRestore handler answers with; tests override fields per case. */
export interface Coordinates {
  presignedS3Url: string;
  expectedSizeBytes: number;
  expectedSha256: string;
  lockToken: string;
}

/** One pg_restore run as the PATH shim logged it. */
export interface PgRestoreRun {
  /** "$*" as pg_restore received it. */
  argv: string;
  /** /proc/<pid>/cmdline: what `ps` shows any local user. */
  cmdline: string;
  /** "<PGPASSFILE or none> <its mode> <PGPASSWORD-set or nothing>". */
  pgpass: string;
}

/** A snapshot precise enough to tell "exactly as it was" from "almost": objects, definitions and data. */
export interface Snapshot {
  description: DatabaseDescription;
  schema: unknown;
  /** md5 of every row of every table, per table. */
  rows: Record<string, string>;
}

/** Object names, definitions, sequence values and comments, each list sorted by its own text. */
const SCHEMA_SQL = `
SELECT json_build_object(
  'relations', (SELECT coalesce(json_agg(x ORDER BY x), '[]') FROM (
                 SELECT format('%s.%s:%s', n.nspname, c.relname, c.relkind) AS x
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%') s),
  'constraints', (SELECT coalesce(json_agg(x ORDER BY x), '[]') FROM (
                   SELECT format('%s.%s: %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) AS x
                   FROM pg_constraint WHERE connamespace = 'public'::regnamespace) s),
  'indexes', (SELECT coalesce(json_agg(indexdef ORDER BY indexdef), '[]') FROM pg_indexes WHERE schemaname = 'public'),
  'views', (SELECT coalesce(json_agg(format('%s: %s', viewname, definition) ORDER BY viewname), '[]') FROM pg_views WHERE schemaname = 'public'),
  'sequences', (SELECT coalesce(json_agg(format('%s: %s', sequencename, last_value) ORDER BY sequencename), '[]') FROM pg_sequences WHERE schemaname = 'public'),
  'comments', (SELECT coalesce(json_agg(x ORDER BY x), '[]') FROM (
                SELECT format('%s: %s', objoid::regclass, description) AS x FROM pg_description
                WHERE classoid = 'pg_class'::regclass AND objoid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)) s)
)`;

/** The major of a client tool ("pg_dump (PostgreSQL) 15.18 (Debian ...)" -> 15). */
export async function toolMajor(file: string): Promise<number> {
  const { stdout } = await execa(file, ['--version']);
  const major = Number(/\(PostgreSQL\) (\d+)/.exec(stdout)?.[1]);
  if (!Number.isInteger(major)) throw new Error(`${file} --version printed ${JSON.stringify(stdout)}`);
  return major;
}

/** Live (non-zombie) processes whose command line mentions `needle`. */
export function processesMentioning(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes(needle)) found.push(`${pid} ${cmd}`);
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export class RestoreHarness {
  cluster!: PgCluster;
  artifact!: ArtifactServer;
  api = new LoopbackServer();
  /** The seed database's dump: path and its real size and digest. */
  dumpPath = '';
  /**
   * Where the dump came from: the machine's pg_dump run against the server under test when it can
   * dump that server (its major is not newer than pg_dump's), else the committed seed fixture.
   */
  dumpOrigin: 'server under test' | 'committed fixture' = 'server under test';
  info!: ArtifactInfo;
  source!: Snapshot;
  /** Private scratch space: dumps, shim, fake HOME, private TMPDIR, work dirs. */
  scratch = '';
  /** The OS temp dir svc sees (TMPDIR), private to this file so leftovers are ours alone. */
  tmp = '';
  shimDir = '';
  shimLog = '';
  /** The real pg_restore the shim hands over to: the machine's (/usr/lib/postgresql/<v>/bin). */
  realPgRestore = '';
  /** What the next createRestore answers with; reset to the real artifact before each test. */
  coords!: Coordinates;
  /** Every output of every run in this file, for the secret checks. */
  readonly outputs: string[] = [];
  /** How many of `outputs` earlier cases already scanned. */
  #scannedOutputs = 0;
  /** Every artifact request of earlier tests (reset() clears the servers' own logs). */
  readonly artifactRequestsSeen: ArtifactRequest[] = [];
  #servers: ArtifactServer[] = [];
  #savedTmpdir: { value: string | undefined } | undefined;
  readonly #settings: Record<string, string>;

  /** `settings`: server settings of the cluster, e.g. `{ autovacuum: 'off' }` where statistics are asserted. */
  constructor(opts: { settings?: Record<string, string> } = {}) {
    this.#settings = opts.settings ?? {};
  }

  async start(): Promise<this> {
    // Scratch first, under the real temp dir: the cluster's own dir must stay reachable for the postgres user.
    this.scratch = await mkdtemp(join(tmpdir(), 'svc-restorepg-'));
    const serverBinDir = process.env[SERVER_BINDIR_ENV] || undefined;
    // The worker's cluster (of that major) unless this file needs other server settings.
    this.cluster = Object.keys(this.#settings).length
      ? await startCluster({ password: DSN_PASSWORD, settings: this.#settings, serverBinDir })
      : await workerCluster({ password: DSN_PASSWORD, serverBinDir });
    this.realPgRestore = join(this.cluster.binDir, 'pg_restore');
    await seedDatabase(this.cluster, SOURCE_DB);
    this.dumpPath = join(this.scratch, 'acme-orders.pgdump');
    // pg_dump refuses a server of a newer major ("aborting because of server version mismatch").
    if (this.cluster.serverMajor <= (await toolMajor(join(this.cluster.binDir, 'pg_dump')))) {
      await dumpDatabase(this.cluster, SOURCE_DB, this.dumpPath);
    } else {
      this.dumpOrigin = 'committed fixture';
      copyFileSync(SEED_FIXTURE, this.dumpPath);
    }
    this.info = await artifactInfo(this.dumpPath);
    this.source = await this.snapshot(SOURCE_DB);
    this.artifact = await this.serve(this.dumpPath);
    await this.api.start();

    this.tmp = join(this.scratch, 'tmp');
    await mkdir(this.tmp);
    await mkdir(join(this.scratch, 'home'));
    await mkdir(join(this.scratch, 'config'));
    this.shimDir = join(this.scratch, 'shim');
    await mkdir(this.shimDir);
    this.shimLog = join(this.scratch, 'pg_restore.log');
    await writeFile(this.shimLog, '');
    // Logs each restore's argv as pg_restore received it and as the process list shows it, and
    // where its password came from, then becomes the real pg_restore (exec: same pid, so SIGINT
    // reaches it). Version probes, the archive listing (-l) and its schema script (--create --schema-only -f -), which connect to nothing, are not logged.
    await writeFile(
      join(this.shimDir, 'pg_restore'),
      [
        '#!/bin/sh',
        `[ "$1" = "--version" ] && exec ${this.realPgRestore} "$@"`,
        `[ "$1" = "-l" ] && exec ${this.realPgRestore} "$@"`,
        // A drill's count of the archive's rows (rows_match) reads the file and connects nowhere, like -l.
        `[ "$1" = "--data-only" ] && exec ${this.realPgRestore} "$@"`,
        // The schema script (archive-script.ts) connects to nothing either.
        `[ "$1" = "--create" ] && [ "$2" = "--schema-only" ] && exec ${this.realPgRestore} "$@"`,
        `printf 'argv: %s\\n' "$*" >> '${this.shimLog}'`,
        `printf 'cmdline: %s\\n' "$(tr '\\0' ' ' < /proc/$$/cmdline)" >> '${this.shimLog}'`,
        // Where the password came from: a PGPASSFILE (path and mode) or PGPASSWORD; never the values.
        `printf 'pgpass: %s %s %s\\n' "\${PGPASSFILE:-none}" "$([ -n "$PGPASSFILE" ] && stat -c %a "$PGPASSFILE")" "\${PGPASSWORD:+PGPASSWORD-set}" >> '${this.shimLog}'`,
        // SVC_TEST_OMIT: restore from the archive's listing without the entries matching this
        // pattern (pg_restore -L): a restore that "succeeds" with an object missing.
        'if [ -n "$SVC_TEST_OMIT" ]; then',
        '  for archive; do :; done',
        `  ${this.realPgRestore} -l "$archive" | grep -v -- "$SVC_TEST_OMIT" > '${join(this.scratch, 'omit.list')}'`,
        `  exec ${this.realPgRestore} -L '${join(this.scratch, 'omit.list')}' "$@"`,
        'fi',
        // SVC_TEST_SLOW_SIGINT=<path>: a pg_restore slow to stop. The SIGINT svc forwards makes
        // <path>.forwarded, and reaches pg_restore only once the test makes <path>.open (the event
        // it waits for, not a delay).
        'if [ -n "$SVC_TEST_SLOW_SIGINT" ]; then',
        `  trap ': > "$SVC_TEST_SLOW_SIGINT.forwarded"; while [ ! -e "$SVC_TEST_SLOW_SIGINT.open" ]; do sleep 0.05; done; kill -INT "$child" 2>/dev/null' INT`,
        `  ${this.realPgRestore} "$@" &`,
        '  child=$!',
        '  wait "$child"',
        '  wait "$child"',
        '  exit $?',
        'fi',
        `exec ${this.realPgRestore} "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(join(this.shimDir, 'pg_restore'), 0o755);

    // In-process runs create their PGPASSFILE dir under os.tmpdir(): point it at our private one.
    this.#savedTmpdir = { value: process.env.TMPDIR };
    process.env.TMPDIR = this.tmp;
    await this.reset();
    return this;
  }

  async stop(): Promise<void> {
    if (this.#savedTmpdir) {
      if (this.#savedTmpdir.value === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = this.#savedTmpdir.value;
    }
    await Promise.allSettled([...this.#servers.map((s) => s.stop()), this.api.stop()]);
    await this.cluster?.stop();
    if (this.scratch) await rm(this.scratch, { recursive: true, force: true });
  }

  /** Before each test: normal artifact, fresh request logs, empty shim log, the createRestore handler. */
  async reset(): Promise<void> {
    this.artifactRequestsSeen.push(...this.allArtifactRequests());
    for (const s of this.#servers) s.reset();
    this.api.reset();
    this.coords = {
      presignedS3Url: this.artifact.url,
      expectedSizeBytes: this.info.sizeBytes,
      expectedSha256: this.info.sha256,
      lockToken: LOCK_TOKEN,
    };
    this.api.use(
      http.post('*/api/v1/restores', async ({ request }) => {
        const body = (await request.json()) as { mode: Mode };
        return HttpResponse.json(this.restoreBody(body.mode), { status: 202, headers: { 'X-Request-ID': 'req_restore_1' } });
      }),
      // getBackup, read before createRestore: a completed backup whose artifact is the real dump.
      http.get(`*/api/v1/backups/${BACKUP_ID}`, () => HttpResponse.json(this.backupBody(), { headers: { 'X-Request-ID': 'req_backup_1' } })),
    );
    await writeFile(this.shimLog, '');
  }

  /** Another presigned-style server (e.g. for a patched archive); stopped with the harness. */
  async serve(file: string): Promise<ArtifactServer> {
    const server = await startArtifactServer(file);
    this.#servers.push(server);
    return server;
  }

  /** getBackup of BACKUP_ID: completed, with the real dump's size and digest. */
  backupBody(): Record<string, unknown> {
    const body = fixture('backup-get-completed');
    return { ...body, id: BACKUP_ID, artifact: { ...body.artifact, sizeBytes: this.info.sizeBytes, checksumSha256: this.info.sha256 } };
  }

  /** The createRestore 202 body for the current coordinates. */
  restoreBody(mode: Mode): { restoreJob: Record<string, unknown>; execution: Record<string, unknown> } {
    const { restoreJob } = fixture('restore-get');
    return {
      restoreJob: {
        ...restoreJob,
        id: 'rj_restorepg',
        mode,
        state: 'queued',
        finalizedAt: null,
        heartbeatAt: null,
        proof: { completedBackup: true, verifiedRestore: false, provenRecoverability: false },
      },
      execution: {
        jobId: randomUUID(),
        lockToken: this.coords.lockToken,
        presignedS3Url: this.coords.presignedS3Url,
        manifestObjectKey: 'manifests/db_orders/bj_x.json',
        expectedSizeBytes: this.coords.expectedSizeBytes,
        expectedSha256: this.coords.expectedSha256,
      },
    };
  }

  dsn(database: string, withPassword = false): string {
    return this.cluster.dsn(database, withPassword);
  }

  redacted(database: string): string {
    return `postgresql://postgres@127.0.0.1:${this.cluster.port}/${database}`;
  }

  /** The environment svc runs with: nothing inherited but PATH (shim first), no PG* settings, no CI. */
  env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      PATH: `${this.shimDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: join(this.scratch, 'home'),
      XDG_CONFIG_HOME: join(this.scratch, 'config'),
      XDG_CACHE_HOME: sharedCacheHome(),
      TMPDIR: this.tmp,
      LANG: 'C',
      LC_ALL: 'C',
      NO_COLOR: '1',
      SVC_API_KEY: API_TOKEN,
      SVC_BASE_URL: this.api.baseUrl,
      ...extra,
    };
  }

  /** runCli with this harness's env; every output is checked for secrets right away. */
  async cli(argv: string[], opts: RunOptions = {}): Promise<CliRun> {
    const r = await runCli(argv, { ...opts, env: this.env(opts.env) });
    this.record(r.stdout, r.stderr);
    return r;
  }

  /** The built CLI (`node bin/svc`, test/support/built-cli.ts) with this harness's env; every output is checked for secrets right away. */
  async built(argv: string[], opts: { env?: Record<string, string | undefined> } = {}): Promise<CliRun> {
    const r = await spawnSvc(argv, { env: this.env(opts.env), timeoutMs: 120_000 });
    const run = { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    this.record(run.stdout, run.stderr);
    return run;
  }

  /** Remembers an output and fails at once if it holds a secret. */
  record(...texts: string[]): void {
    for (const text of texts) {
      this.outputs.push(text);
      const leaks = leaksIn(text, this.secretSet());
      if (leaks.length) throw new Error(`output leaks ${leaks.join(', ')}:\n${text}`);
    }
  }

  /** Every secret string of this file, for tests that search outputs themselves. */
  secrets(): string[] {
    return needles(this.secretSet()).map((n) => n.value);
  }

  /** The secrets of this file, for the scan (test/support/secret-scan.ts). */
  secretSet(): Secrets {
    return {
      tokens: [API_TOKEN],
      lockTokens: [LOCK_TOKEN, this.coords?.lockToken],
      presignedUrls: [...this.#servers.map((s) => s.url), this.coords?.presignedS3Url],
      dsnPasswords: [DSN_PASSWORD],
    };
  }

  /**
   * For afterEach: the case's outputs and everything on disk it could have written to (work dirs,
   * receipts, TMPDIR, HOME, the shim's log) hold no secret.
   */
  async expectNoSecretsLeft(): Promise<void> {
    const texts = this.outputs.slice(this.#scannedOutputs);
    this.#scannedOutputs = this.outputs.length;
    await expectNoSecretsLeft({ texts, paths: [this.scratch] }, this.secretSet());
  }

  createRestoreRequests() {
    return this.api.exchanges.filter((r) => r.method === 'POST' && r.url.pathname === '/api/v1/restores');
  }

  allArtifactRequests() {
    return this.#servers.flatMap((s) => s.requests);
  }

  /** pg_restore runs the shim saw (version probes and archive listings excluded). */
  async pgRestoreRuns(): Promise<PgRestoreRun[]> {
    const runs: PgRestoreRun[] = [];
    for (const line of (await readFile(this.shimLog, 'utf8')).split('\n')) {
      const m = /^(argv|cmdline|pgpass): ?(.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === 'argv') runs.push({ argv: m[2]!, cmdline: '', pgpass: '' });
      else if (runs.length) runs[runs.length - 1]![m[1] as 'cmdline' | 'pgpass'] = m[2]!;
    }
    return runs;
  }

  /**
   * A pg_restore in front of the harness's, in a directory of its own to put first on PATH: `body` is
   * sh run for a restore ($REAL is the real one; version probes, the listing and the schema script pass).
   */
  async pgRestoreShim(name: string, body: string): Promise<string> {
    const dir = join(this.scratch, `shim-${name}`);
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'pg_restore');
    await writeFile(
      file,
      ['#!/bin/bash', `REAL=${this.realPgRestore}`, 'case "$1" in --version|-l|--create|--data-only) exec "$REAL" "$@";; esac', body, ''].join('\n'),
    );
    await chmod(file, 0o755);
    return dir;
  }

  async workDir(): Promise<string> {
    return mkdtemp(join(this.scratch, 'work-'));
  }

  async pgpassLeftovers(): Promise<string[]> {
    return (await readdir(this.tmp)).filter((n) => n.startsWith('svc-pgpass-'));
  }

  async databaseExists(name: string): Promise<boolean> {
    return (await this.cluster.psql(`SELECT count(*) FROM pg_database WHERE datname = '${name.replaceAll("'", "''")}'`)) === '1';
  }

  async dropDatabase(name: string): Promise<void> {
    await this.cluster.psql(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  }

  /** A fresh copy of the seed database under `name`. */
  async seeded(name: string): Promise<void> {
    await this.dropDatabase(name);
    await seedDatabase(this.cluster, name);
  }

  async snapshot(database: string): Promise<Snapshot> {
    const description = await describeDatabase(this.cluster, database);
    const schema = JSON.parse(await this.cluster.psql(SCHEMA_SQL, database)) as unknown;
    const tables = (
      await this.cluster.psql(
        `SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
        database,
      )
    )
      .split('\n')
      .filter(Boolean);
    const rows: Record<string, string> = {};
    for (const t of tables) {
      rows[t] = await this.cluster.psql(`SELECT md5(coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '')) FROM ${t} r`, database);
    }
    return { description, schema, rows };
  }
}

/** A token unlike any other, for idempotency keys and the like. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(3).toString('hex')}`;
}

/**
 * The harness of the enclosing describe: started once (with the CLI built when a test runs
 * `bin/svc` as a subprocess), reset before each test, and after each test proved to have left
 * no secret in any output or file.
 */
export function useRestoreHarness(opts: { settings?: Record<string, string>; built?: boolean } = {}): RestoreHarness {
  const h = new RestoreHarness({ settings: opts.settings });
  beforeAll(async () => {
    await Promise.all([h.start(), opts.built ? ensureBuilt() : undefined]);
  }, 300_000);
  afterAll(() => h.stop());
  beforeEach(() => h.reset());
  afterEach(() => h.expectNoSecretsLeft());
  return h;
}

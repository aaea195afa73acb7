import { readdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { ensureBuilt } from '../support/built-cli.js';
import { disposePtys, PtySession, ptySkipReason, type PtyResult } from '../support/pty.js';
import { BACKUP_ID, processesMentioning, RestoreHarness, waitFor } from '../support/restore-harness.js';
import { holdLock, lockWaiter, releaseAll } from '../support/restore-signals.js';

const skip = pgSkipReason() ?? ptySkipReason();
if (skip) console.warn(`test/restore/signals-terminal.test.ts skipped: ${skip}`);

const DB = 'sig_prompt';
const PROMPT = `Type the database name "${DB}" to confirm`;

/**
 * svc in a real terminal (test/support/pty.ts). First the in-place confirmation prompt
 * (cli-contract 7.9: "the confirmation prompt included"): clack holds the terminal in raw mode, so a
 * typed Ctrl-C is a key, not a signal, and a signal from outside (a CI runner's SIGTERM, a closed
 * terminal's SIGHUP, `kill -INT`) must end the prompt too. Once, one SIGTERM there left svc waiting
 * forever with the PGPASSFILE on disk. Then the terminal during pg_restore: closed (SSH dropped), or
 * Ctrl-C typed, which the kernel sends to svc and pg_restore at once.
 */
describe.skipIf(!!skip)('signals from a terminal: the in-place prompt and pg_restore (built CLI in a pseudo-terminal)', () => {
  const h = new RestoreHarness();

  beforeAll(async () => {
    await Promise.all([ensureBuilt(), h.start()]);
    await h.cluster.psql(`CREATE DATABASE ${DB} TEMPLATE template0`);
  }, 300_000);
  afterAll(() => h.stop());
  beforeEach(() => h.reset());
  afterEach(() => disposePtys());
  afterEach(() => releaseAll());
  afterEach(() => h.expectNoSecretsLeft());

  /** `svc restore create` into `db`, in a terminal of its own. */
  const inTerminal = (args: string[], db: string, firstOnPath?: string) => {
    const env = h.env({ SVC_TARGET_DSN: h.dsn(db, true), TERM: 'xterm-256color' });
    if (firstOnPath) env.PATH = `${firstOnPath}:${env.PATH}`;
    return PtySession.start(['restore', 'create', '--backup', BACKUP_ID, ...args], { env, rows: 30, cols: 120 });
  };

  /** `restore create --in-place` without --confirm, in a terminal, stopped at the prompt. */
  async function atPrompt(): Promise<{ pty: PtySession; workDir: string }> {
    const workDir = await h.workDir();
    const pty = await inTerminal(['--in-place', '--work-dir', workDir], DB);
    await pty.waitForText(PROMPT);
    // The prompt is up, so the password file is on disk: the clean-up below is real.
    expect(await h.pgpassLeftovers()).toHaveLength(1);
    return { pty, workDir };
  }

  /** svc must leave on its own: a prompt that outlives the signal is the bug this file is about. */
  async function ended(pty: PtySession): Promise<PtyResult> {
    const r = await Promise.race([
      pty.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`svc still running 15 s after the signal; the terminal showed:\n${pty.screen()}`)), 15_000),
      ),
    ]);
    h.record(r.raw);
    return r;
  }

  async function expectNothingHappened(workDir: string): Promise<void> {
    expect(await h.pgpassLeftovers()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    // Only getBackup: the prompt comes after the service's checks of the backup, and before createRestore.
    expect(h.api.exchanges.map((e) => `${e.method} ${e.url.pathname}`)).toEqual([`GET /api/v1/backups/${BACKUP_ID}`]);
    expect(h.createRestoreRequests()).toEqual([]);
    expect(await h.pgRestoreRuns()).toEqual([]);
    await waitFor('no child process of svc left', () => processesMentioning(workDir).length === 0, 5_000);
    expect(await h.cluster.psql(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${DB}'`)).toBe('0');
  }

  const notTouched = () => `Interrupted before the download. The target ${h.redacted(DB)} was not touched.`;

  it.each([
    { signal: 'SIGTERM', code: 143 },
    { signal: 'SIGHUP', code: 129 },
    { signal: 'SIGINT', code: 130 },
  ] as const)('$signal sent to svc at the prompt: the prompt ends, exit $code, target not touched, no PGPASSFILE, no restore job', async ({ signal, code }) => {
    const { pty, workDir } = await atPrompt();
    pty.kill(signal);
    const r = await ended(pty);
    expect(r.signal).toBeUndefined();
    expect(r.exitCode, r.screen).toBe(code);
    expect(r.screen).toContain(notTouched());
    await expectNothingHappened(workDir);
  });

  it('the terminal closed at the prompt (SIGHUP from the kernel): exit 129, no PGPASSFILE, no restore job', async () => {
    const { pty, workDir } = await atPrompt();
    pty.hangUp();
    const r = await ended(pty);
    expect(r.signal).toBeUndefined();
    expect(r.exitCode, r.screen).toBe(129);
    await expectNothingHappened(workDir);
  });

  it('Ctrl-C typed at the prompt: exit 130, "not confirmed", no PGPASSFILE, no restore job', async () => {
    const { pty, workDir } = await atPrompt();
    pty.type('\x03');
    const r = await ended(pty);
    expect(r.exitCode, r.screen).toBe(130);
    expect(r.screen).toContain('In-place restore not confirmed; nothing was changed.');
    await expectNothingHappened(workDir);
  });

  it('a wrong name is refused at the prompt and Ctrl-C still ends it (the prompt reads keys, not lines)', async () => {
    const { pty, workDir } = await atPrompt();
    pty.type(`${DB}_not\r`);
    await pty.waitForText(`Type exactly: ${DB}`);
    pty.type('\x03');
    const r = await ended(pty);
    expect(r.exitCode, r.screen).toBe(130);
    expect(r.screen).toContain('In-place restore not confirmed; nothing was changed.');
    await expectNothingHappened(workDir);
  });

  const noSessionIn = (db: string) =>
    waitFor(
      `no session left in ${db}`,
      async () => (await h.cluster.psql(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${db}'`)) === '0' || undefined,
    );

  it('confirmed at the prompt, then the terminal closes during the in-place pg_restore: exit 129, the new database beside the target dropped, the target untouched, no PGPASSFILE', async () => {
    const db = 'sig_term_inplace';
    await h.seeded(db);
    await h.cluster.psql("UPDATE customers SET name = 'Changed ' || id WHERE id <= 10;", db);
    const before = await h.snapshot(db);
    const shim = await h.pgRestoreShim('term-inplace', '"$REAL" "$@" && exec sleep 58.8');
    const workDir = await h.workDir();
    const pty = await inTerminal(['--in-place', '--work-dir', workDir], db, shim);
    await pty.waitForText(`Type the database name "${db}" to confirm`);
    pty.type(`${db}\r`);
    await waitFor('pg_restore done and sleeping', () => processesMentioning('sleep 58.8').length > 0 || undefined, 30_000);
    expect(await h.pgpassLeftovers()).toHaveLength(1);
    pty.hangUp();
    const r = await ended(pty);

    expect(r.signal).toBeUndefined();
    expect(r.exitCode, r.screen).toBe(129);
    expect(JSON.parse(h.createRestoreRequests()[0]!.body)).toMatchObject({ mode: 'in_place', confirmDestructive: true });
    await waitFor('no pg_restore process left', () => processesMentioning('sleep 58.8').length === 0 || undefined, 5_000);
    expect(await h.cluster.psql(`SELECT count(*) FROM pg_database WHERE starts_with(datname, '${db}_svc_')`)).toBe('0');
    await noSessionIn(db);
    expect(await h.snapshot(db)).toEqual(before);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });

  it('Ctrl-C typed during a new-database pg_restore (the kernel signals svc and pg_restore together): exit 130, says the database may be partly restored', async () => {
    const db = 'sig_term_newdb';
    await h.dropDatabase(db);
    await h.cluster.psql(`CREATE DATABASE ${db} TEMPLATE template0`);
    const lock = await holdLock(h, db, 'LOCK TABLE pg_catalog.pg_trigger IN SHARE MODE;', 'pg_trigger');
    const workDir = await h.workDir();
    const pty = await inTerminal(['--work-dir', workDir], db);
    await lockWaiter(h, db);
    pty.type('\x03');
    const r = await ended(pty);

    expect(r.exitCode, r.screen).toBe(130);
    // The error's lines wrap at the terminal's width, under themselves: read them as one text.
    const flowed = r.screen.replace(/\n +/g, ' ');
    expect(flowed).toContain('Interrupted while restoring; the downloaded artifact was removed.');
    expect(flowed).toContain(
      `The new database "${db}" may be partly restored: drop it before trying again (dropdb -h 127.0.0.1 -p ${h.cluster.port} -U postgres ${db}).`,
    );
    await waitFor('no pg_restore process left', () => processesMentioning(workDir).length === 0 || undefined, 5_000);
    await lock.release();
    await noSessionIn(db);
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);
  });
});

import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { spawnSvc } from '../support/built-cli.js';
import { BACKUP_ID, DSN_PASSWORD, processesMentioning, useRestoreHarness, waitFor } from '../support/restore-harness.js';
import { holdLock as holdLockIn, lockWaiter as lockWaiterIn, releaseAll } from '../support/restore-signals.js';
import { shellGate } from '../support/shell-gate.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/restore-pg/sigint.test.ts skipped: ${skip}`);

/**
 * Ctrl-C against the built CLI in a real process: SIGINT to `node bin/svc`, which must stop the
 * download or forward SIGINT to pg_restore and wait for it, clean up, say what state the target is
 * in, and exit 130. pg_restore is held mid-restore by a lock another session keeps.
 */
describe.skipIf(!!skip)('SIGINT during a restore (built CLI as a subprocess)', () => {
  const h = useRestoreHarness({ built: true });
  /** Gates a shim may still wait at when a test fails early: opened, so no shim is left polling. */
  const gates: Array<() => void> = [];
  afterEach(() => {
    for (const open of gates.splice(0)) open();
    return releaseAll();
  });

  const childEnv = (database: string) => h.env({ SVC_TARGET_DSN: h.dsn(database, true) });

  const holdLock = (database: string, sql: string, lockedRelation: string) => holdLockIn(h, database, sql, lockedRelation);
  const lockWaiter = (database: string) => lockWaiterIn(h, database);
  /** A sleep no other run on the machine uses (another run of this file among them), to find by its command line. */
  const uniqueSleep = (whole: number) => `sleep ${whole}.${randomInt(1e9, 1e10)}`;

  async function expectCleanAfterInterrupt(workDir: string): Promise<void> {
    expect(await readdir(workDir)).toEqual([]);
    // pg_restore's parallel workers get SIGTERM from their leader as it exits: give them a moment.
    await waitFor('no pg_restore process left', () => processesMentioning(workDir).length === 0, 5_000);
    expect(await h.pgpassLeftovers()).toEqual([]);
    for (const run of await h.pgRestoreRuns()) expect(run.cmdline).not.toContain(DSN_PASSWORD);
  }

  it('during the download (restore run, slow artifact): exit 130, partial file removed, target not touched', async () => {
    h.artifact.setMode({ slow: { bytesPerChunk: 2048, delayMs: 60 } });
    const workDir = await h.workDir();
    const child = spawnSvc(['restore', 'run', '--work-dir', workDir], { env: childEnv('sig_download'), input: JSON.stringify(h.restoreBody('new_database')) });
    await waitFor('a partial artifact on disk', async () => {
      const [run] = await readdir(workDir);
      if (!run) return false;
      const size = await stat(join(workDir, run, 'artifact.dump')).then(
        (s) => s.size,
        () => 0,
      );
      return size > 0 && size < h.info.sizeBytes;
    });
    child.kill('SIGINT');
    const r = await child;
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(r.stderr).toContain('Interrupted during the download; the partial artifact was removed.');
    expect(r.stderr).toContain(`The target ${h.redacted('sig_download')} was not touched.`);
    expect(r.stdout).toBe('');
    expect(await h.databaseExists('sig_download')).toBe(false);
    expect(await h.pgRestoreRuns()).toEqual([]);
    expect(h.api.exchanges).toEqual([]);
    await expectCleanAfterInterrupt(workDir);
  });

  /** The databases an in-place restore of `db` made beside it (the new one, the kept one). */
  const besides = async (db: string) =>
    (await h.cluster.psql(`SELECT string_agg(datname, ',') FROM pg_database WHERE starts_with(datname, '${db}_svc_')`)).split(',').filter(Boolean);

  it('during an in-place pg_restore into the new database beside the target (restore create): SIGINT is forwarded, the new database dropped, the target exactly as it was', async () => {
    await h.seeded('sig_inplace');
    await h.cluster.psql("UPDATE customers SET name = 'Changed ' || id WHERE id <= 10; DELETE FROM orders WHERE id > 4990;", 'sig_inplace');
    const before = await h.snapshot('sig_inplace');
    // The real restore runs, then pg_restore "keeps working" until svc forwards the signal.
    const sleeping = uniqueSleep(58);
    const shim = await h.pgRestoreShim('sig-inplace', `"$REAL" "$@" && exec ${sleeping}`);
    const workDir = await h.workDir();
    const env = childEnv('sig_inplace');
    const child = spawnSvc(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', workDir], {
      env: { ...env, PATH: `${shim}:${env.PATH}` },
    });
    await waitFor('pg_restore done and sleeping', () => processesMentioning(sleeping).length > 0 || undefined, 30_000);
    expect(await besides('sig_inplace')).toEqual([expect.stringMatching(/^sig_inplace_svc_restore_\d{14}$/)]);
    child.kill('SIGINT');
    const r = await child;
    h.record(String(r.stdout), String(r.stderr));

    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(r.stderr).toContain('Interrupted while restoring; the downloaded artifact was removed.');
    expect(r.stderr).toMatch(
      /The target \S+\/sig_inplace was not touched: the backup was being restored beside it into the new database "sig_inplace_svc_restore_\d{14}", which was dropped\./,
    );
    expect(JSON.parse(h.createRestoreRequests()[0]!.body)).toMatchObject({ mode: 'in_place', confirmDestructive: true });
    expect(await besides('sig_inplace')).toEqual([]);
    expect(await h.snapshot('sig_inplace')).toEqual(before);
    await expectCleanAfterInterrupt(workDir);
  });

  it('during a new-database pg_restore (restore run): exit 130, and it says the new database may be partly restored, which it is', async () => {
    await h.dropDatabase('sig_newdb');
    await h.cluster.psql('CREATE DATABASE sig_newdb TEMPLATE template0');
    // Tables, data, indexes and keys go in; the foreign key (its triggers are rows of pg_trigger)
    // waits for this lock, so pg_restore is caught with a database it has partly restored.
    const lock = await holdLock('sig_newdb', 'LOCK TABLE pg_catalog.pg_trigger IN SHARE MODE;', 'pg_trigger');

    const workDir = await h.workDir();
    const child = spawnSvc(['restore', 'run', '--work-dir', workDir], { env: childEnv('sig_newdb'), input: JSON.stringify(h.restoreBody('new_database')) });
    await lockWaiter('sig_newdb');
    child.kill('SIGINT');
    const r = await child;
    h.record(String(r.stdout), String(r.stderr));
    await lock.release();

    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(r.stderr).toContain('Interrupted while restoring; the downloaded artifact was removed.');
    expect(r.stderr).toContain(
      `The new database "sig_newdb" may be partly restored: drop it before trying again (dropdb -h 127.0.0.1 -p ${h.cluster.port} -U postgres sig_newdb).`,
    );
    await waitFor(
      'no session left in sig_newdb',
      async () => (await h.cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = 'sig_newdb'")) === '0',
    );
    const after = await h.snapshot('sig_newdb');
    expect(after.description.tables).toEqual(h.source.description.tables);
    expect(after).not.toEqual(h.source);
    const fk = (h.source.schema as { constraints: string[] }).constraints.filter((c) => c.includes('FOREIGN KEY'));
    expect(fk).toHaveLength(1);
    expect((after.schema as { constraints: string[] }).constraints).not.toContain(fk[0]);
    await expectCleanAfterInterrupt(workDir);
  });

  it('a second Ctrl-C exits at once, yet leaves no PGPASSFILE (it holds the password) and no artifact behind', async () => {
    await h.seeded('sig_twice');
    const before = await h.snapshot('sig_twice');
    const workDir = await h.workDir();
    // The shim restores, then "keeps working"; on the forwarded SIGINT it says so (a file) and hands
    // the signal on only once the test opens the gate: svc is surely still waiting for it when the
    // second Ctrl-C comes, and if svc then exits while the gate is shut, it did not wait for pg_restore.
    const sleeping = uniqueSleep(58);
    const gate = shellGate(h.scratch);
    gates.push(gate.open);
    const forwarded = join(h.scratch, `forwarded-${randomInt(1e9, 1e10)}`);
    const shim = await h.pgRestoreShim(
      'sig-twice',
      [
        `forward() { : > '${forwarded}'; ${gate.wait}; kill -TERM "$child" 2>/dev/null; }`,
        'trap forward INT',
        `( "$REAL" "$@" && exec ${sleeping} ) &`,
        'child=$!\nwait "$child"\nwait "$child"\nexit $?',
      ].join('\n'),
    );
    const env = childEnv('sig_twice');
    const child = spawnSvc(['restore', 'create', '--backup', BACKUP_ID, '--in-place', '--confirm', '--work-dir', workDir], {
      env: { ...env, PATH: `${shim}:${env.PATH}` },
    });
    await waitFor('pg_restore done and sleeping', () => processesMentioning(sleeping).length > 0 || undefined, 30_000);
    expect(await h.pgpassLeftovers()).toHaveLength(1);
    child.kill('SIGINT');
    await waitFor('the first SIGINT forwarded to pg_restore', () => existsSync(forwarded), 30_000);
    expect(child.exitCode).toBeNull();
    child.kill('SIGINT');
    const r = await child;
    // At once: pg_restore still holds (the gate is shut), and svc is gone all the same.
    const stillRestoring = processesMentioning(sleeping).length;
    gate.open();
    h.record(String(r.stdout), String(r.stderr));

    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(stillRestoring).toBeGreaterThan(0);
    // Gone without the orderly path's report: the cleanup happened on the way out, and one line says so.
    expect(r.stderr).not.toContain('Interrupted while restoring');
    // Gone without dropping the new database: the line says so, and how to drop it.
    const [fresh, ...others] = await besides('sig_twice');
    expect(others).toEqual([]);
    expect(r.stderr).toContain(
      `Stopped at once on a second SIGINT; the password file and temporary files were removed. The target ${h.redacted('sig_twice')} was not touched: the backup was being restored beside it into the new database "${fresh}", which may be left behind: drop it before trying again (dropdb -h 127.0.0.1 -p ${h.cluster.port} -U postgres ${fresh}).`,
    );
    expect(await readdir(workDir)).toEqual([]);
    expect(await h.pgpassLeftovers()).toEqual([]);

    await waitFor('no pg_restore process left', () => processesMentioning(sleeping).length === 0, 10_000);
    expect(await h.snapshot('sig_twice')).toEqual(before);
    await h.dropDatabase(fresh!);
    await expectCleanAfterInterrupt(workDir);
  });

  it('across every case: no secret in any output, no Authorization to the artifact store', () => {
    expect(h.outputs.length).toBe(8);
    for (const text of h.outputs) for (const s of h.secrets()) expect(text).not.toContain(s);
    const requests = [...h.artifactRequestsSeen, ...h.allArtifactRequests()];
    expect(requests.length).toBeGreaterThanOrEqual(3);
    for (const req of requests) expect(req.headers.authorization).toBeUndefined();
  });
});

import { chmod, mkdtemp, readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT, spawnSvc } from '../support/built-cli.js';
import { drillApi, drillProcesses, DRILLED, toolGate } from '../support/drill-signals.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { DSN_PASSWORD, RestoreHarness, waitFor } from '../support/restore-harness.js';
import { expectNoSecretsLeft } from '../support/secret-scan.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-orphans.test.ts skipped: ${skip}`);

/**
 * A drill killed with SIGKILL (cli-contract 9.12): pg_ctl puts the postmaster in a session of its
 * own, so `kill -9` of svc's process group while pg_restore runs leaves the scratch cluster running
 * (or, with --scratch <dsn>, an svc_drill_* database on the operator's server), the artifact in the
 * work dir and the PGPASSFILE in TMPDIR. The next drill with the same work dir removes them before
 * it starts its own, and says so. Built CLI, real PostgreSQL.
 */
describe.skipIf(!!skip)('a drill after one killed with SIGKILL reaps what it left', { timeout: 120_000 }, () => {
  const h = new RestoreHarness();
  const killed: ResultPromise[] = [];

  beforeAll(async () => {
    await Promise.all([ensureBuilt(), h.start()]);
    await chmod(h.scratch, 0o711);
  }, 300_000);
  afterAll(() => h.stop());
  beforeEach(async () => {
    await h.reset();
    drillApi(h);
  });
  const used: Array<{ dir: string; tmp: string }> = [];
  afterEach(async () => {
    for (const child of killed.splice(0)) await child.catch(() => undefined);
    // A test that failed half-way must not leave the orphan it made running.
    for (const { dir, tmp } of used.splice(0)) {
      for (const p of drillProcesses(dir, tmp)) {
        try {
          process.kill(Number(p.split(' ')[0]), 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    }
  });

  async function dirs(): Promise<{ dir: string; tmp: string }> {
    const dir = await mkdtemp(join(h.scratch, 'work-'));
    await chmod(dir, 0o711);
    const made = { dir, tmp: await mkdtemp(join(h.scratch, 'tmp-')) };
    used.push(made);
    return made;
  }
  const drillDatabases = async () =>
    (await h.cluster.psql("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'svc\\_drill\\_%'")).split(',').filter(Boolean);

  /** A drill in a process group of its own, SIGKILLed (the whole group) once pg_restore runs. */
  async function killedDrill(scratch: string[], dir: string, tmp: string): Promise<number> {
    const gate = await toolGate(
      h,
      'pg_restore',
      join(h.shimDir, 'pg_restore'),
      '[ "$1" != --version ] && [ "$1" != -l ] && [ "$1" != --create ] && [ "$1" != --data-only ]',
    );
    const env = h.env({ TMPDIR: tmp, SVC_PG_BINDIR: h.cluster.serverBinDir, ...gate.env });
    const child = execa(process.execPath, [BIN, 'restore', 'drill', DRILLED, '--work-dir', dir, ...scratch], {
      cwd: ROOT,
      env,
      extendEnv: false,
      reject: false,
      detached: true,
      timeout: 60_000,
    });
    killed.push(child);
    await gate.reached();
    expect(h.createRestoreRequests()).toHaveLength(1);
    process.kill(-child.pid!, 'SIGKILL');
    await child;
    return child.pid!;
  }

  function drill(scratch: string[], dir: string, tmp: string): ResultPromise {
    return spawnSvc(['restore', 'drill', DRILLED, '--work-dir', dir, ...scratch], {
      env: h.env({ TMPDIR: tmp, SVC_PG_BINDIR: h.cluster.serverBinDir }),
      timeoutMs: 60_000,
    });
  }

  it('--scratch auto: the orphaned postmaster is stopped, its cluster, artifact and password file removed, and the drill says so', async () => {
    const { dir, tmp } = await dirs();
    const pid = await killedDrill([], dir, tmp);
    // What SIGKILL leaves: a postmaster of the drill still running, the cluster, the artifact, the PGPASSFILE.
    const postmasters = () => drillProcesses(dir, tmp).filter((p) => / -D \S+\/data -c listen_addresses/.test(p));
    expect(postmasters()).toHaveLength(1);
    const orphanPostmaster = Number(postmasters()[0]!.split(' ')[0]);
    const left = await readdir(dir);
    expect(left.filter((n) => n.startsWith('svc-drill-'))).toHaveLength(1);
    expect(left.filter((n) => n.startsWith('svc-restore-'))).toHaveLength(1);
    expect((await readdir(tmp)).filter((n) => n.startsWith('svc-pgpass-')).length).toBeGreaterThan(0);

    const r = await drill([], dir, tmp);
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const cluster = join(
      dir,
      left.find((n) => n.startsWith('svc-drill-'))!,
    );
    const artifact = join(
      dir,
      left.find((n) => n.startsWith('svc-restore-'))!,
    );
    expect(r.stderr).toContain(
      `Removed the scratch cluster of an earlier run whose svc process (pid ${pid}) no longer exists: stopped its postmaster (pid ${orphanPostmaster}) and removed ${cluster}.`,
    );
    expect(r.stderr).toContain(`Removed the downloaded artifact of an earlier run whose svc process (pid ${pid}) no longer exists: ${artifact}.`);
    expect(r.stderr).toMatch(new RegExp(`Removed the password file of an earlier run whose svc process \\(pid ${pid}\\) no longer exists: ${tmp}/svc-pgpass-`));
    await waitFor('no process of either drill left', () => drillProcesses(dir, tmp).length === 0 || undefined, 10_000).catch(() => undefined);
    expect(drillProcesses(dir, tmp)).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
    expect((await readdir(tmp)).filter((n) => n.startsWith('svc-pgpass-'))).toEqual([]);
    await expectNoSecretsLeft({ texts: [String(r.stdout), String(r.stderr)], paths: [h.scratch] }, { ...h.secretSet(), dsnPasswords: [DSN_PASSWORD] });
  });

  it("--scratch <dsn>: the svc_drill_* database of the killed run is dropped from the operator's server, and the drill says so", async () => {
    const { dir, tmp } = await dirs();
    const scratch = ['--scratch', h.dsn('postgres', true)];
    const pid = await killedDrill(scratch, dir, tmp);
    const [orphan, ...more] = await drillDatabases();
    expect(more).toEqual([]);
    expect(await h.cluster.psql(`SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '${orphan}'`)).toMatch(
      new RegExp(`^svc restore drill: pid=${pid} host=\\S+ started=\\S+$`),
    );

    // Roles other parts of a drill create carry the same marker: the killed run's, one whose pid now
    // belongs to a process that started after the marker (this test's own: a reused pid), and a live one's.
    const marker = (p: number, started: string) => `svc restore drill: pid=${p} host=${hostname()} started=${started}`;
    const roles = { dead: 'svc_drill_owner_killed', reused: 'svc_drill_check_reused', live: 'svc_drill_owner_live' };
    await h.cluster.psql(
      [
        `CREATE ROLE ${roles.dead} NOLOGIN; COMMENT ON ROLE ${roles.dead} IS '${marker(pid, new Date().toISOString())}';`,
        `CREATE ROLE ${roles.reused} NOLOGIN; COMMENT ON ROLE ${roles.reused} IS '${marker(process.pid, '2001-01-01T00:00:00.000Z')}';`,
        `CREATE ROLE ${roles.live} NOLOGIN; COMMENT ON ROLE ${roles.live} IS '${marker(process.pid, new Date().toISOString())}';`,
      ].join('\n'),
    );

    const r = await drill(scratch, dir, tmp);
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stderr).toContain(
      `Dropped ${orphan} from ${h.redacted('postgres')}: the scratch database of an earlier drill whose svc process (pid ${pid}) no longer exists.`,
    );
    expect(r.stderr).toContain(
      `Dropped the role ${roles.dead} from ${h.redacted('postgres')}: made by an earlier drill whose svc process (pid ${pid}) no longer exists.`,
    );
    expect(r.stderr).toContain(`Dropped the role ${roles.reused} from`);
    expect(r.stderr).not.toContain(roles.live);
    expect(await h.cluster.psql("SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'svc\\_drill\\_%'")).toBe(roles.live);
    await h.cluster.psql(`DROP ROLE ${roles.live}`);
    expect(await drillDatabases()).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
    expect((await readdir(tmp)).filter((n) => n.startsWith('svc-pgpass-'))).toEqual([]);
    await expectNoSecretsLeft({ texts: [String(r.stdout), String(r.stderr)], paths: [h.scratch] }, h.secretSet());
  });

  it("a live drill's cluster and scratch database are not touched by another drill in the same work dir", async () => {
    const { dir, tmp } = await dirs();
    const scratch = ['--scratch', h.dsn('postgres', true)];
    const gate = await toolGate(
      h,
      'pg_restore',
      join(h.shimDir, 'pg_restore'),
      '[ "$1" != --version ] && [ "$1" != -l ] && [ "$1" != --create ] && [ "$1" != --data-only ]',
    );
    const first = spawnSvc(['restore', 'drill', DRILLED, '--work-dir', dir, ...scratch], { env: h.env({ TMPDIR: tmp, ...gate.env }), timeoutMs: 60_000 });
    await gate.reached();
    const [running] = await drillDatabases();
    const r = await drill(scratch, dir, tmp);
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stderr).not.toContain('Removed');
    expect(r.stderr).not.toContain('Dropped');
    expect(await drillDatabases()).toEqual([running]);
    await gate.go();
    const f = await first;
    h.record(String(f.stdout), String(f.stderr));
    expect(f.exitCode, String(f.stderr)).toBe(0);
    expect(await drillDatabases()).toEqual([]);
  });
});

/**
 * The scratch cluster cannot see the token's process (cli-contract 9.16, issue 29 item 2). svc's
 * environment holds the API token, and other processes of the same OS user may read it in
 * /proc/<pid>/environ; so may they read the home directory with its credentials file. Run as an
 * ordinary OS user (`nobody`), a drill must start its cluster in namespaces of its own: caught while
 * pg_restore waits at a gate, the postmaster is in another PID and user namespace than svc, its
 * /proc lists no process of svc's and no environment there holds the token, and the home directory
 * is not there. With no namespace to be had (bwrap and unshare missing from PATH), the drill says so
 * and records `none`, or with --isolation required is exit 11 before any createRestore. As root the
 * cluster still runs as the postgres user (`os-user`). Built CLI, real PostgreSQL, the restore
 * harness's API over loopback.
 */
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { BIN, ensureBuilt, ROOT } from '../support/built-cli.js';
import { drillApi, drillProcesses, DRILLED, toolGate } from '../support/drill-signals.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { API_TOKEN, RestoreHarness, waitFor } from '../support/restore-harness.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-isolation.test.ts skipped: ${skip}`);

/** An ordinary OS user of every Linux system. */
const NOBODY = { uid: 65534, gid: 65534 };
const SECRET_FILE = 'do-not-read';

/** The postmaster of a drill's cluster under `workDir`, as this process's /proc shows it: the one postgres whose argv still names the data directory. */
function postmasterIn(workDir: string): number | undefined {
  const cluster = readdirSync(workDir).find((n) => n.startsWith('svc-drill-'));
  if (!cluster) return undefined;
  const dataDir = join(workDir, cluster, 'data');
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (basename(argv[0] ?? '') === 'postgres' && argv.includes(dataDir)) return Number(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

const nsOf = (pid: number, ns: 'pid' | 'user' | 'mnt') => readlinkSync(`/proc/${pid}/ns/${ns}`);
const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe.skipIf(!!skip)("the scratch cluster cannot see the token's process", { timeout: 120_000 }, () => {
  const h = new RestoreHarness();
  const children: ResultPromise[] = [];
  const used: Array<{ dir: string; tmp: string }> = [];
  /** A PATH of everything in /usr/bin and /bin but the tools named: a machine without them. */
  const pathWithout = async (...tools: string[]) => {
    const dir = await mkdtemp(join(h.scratch, 'path-'));
    await chmod(dir, 0o755);
    for (const from of ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
      for (const name of existsSync(from) ? readdirSync(from) : []) {
        if (!tools.includes(name) && !lstatSync(join(dir, name), { throwIfNoEntry: false })) symlinkSync(join(from, name), join(dir, name));
      }
    }
    return `${h.shimDir}:${dir}`;
  };

  beforeAll(async () => {
    await Promise.all([ensureBuilt(), h.start()]);
    // Everything the unprivileged run needs on the way: the shim (and its log), its own dirs.
    await chmod(h.scratch, 0o711);
    await chmod(h.shimLog, 0o666);
  }, 300_000);
  afterAll(() => h.stop());
  beforeEach(async () => {
    await h.reset();
    drillApi(h);
  });
  afterEach(async () => {
    await h.expectNoSecretsLeft();
    for (const child of children.splice(0)) await child.catch(() => undefined);
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

  /** A home, work dir, TMPDIR and report dir owned by `owner`; with `deep`, a work dir too deep for a Unix socket path of its own. */
  function dirsFor(owner: { uid: number; gid: number }, deep = false) {
    const base = readdirSync(h.scratch).length;
    const root = join(h.scratch, `run-${base}-${owner.uid}`);
    const dir = deep ? join(root, 'a-work-directory-deep-enough'.repeat(3), 'that-no-socket-path-fits-in-it') : join(root, 'work');
    const made = { home: join(root, 'home'), dir, tmp: join(root, 'tmp'), report: join(root, 'report') };
    for (const path of Object.values(made)) mkdirSync(path, { recursive: true });
    for (const path of [root, ...Object.values(made), join(dir, '..'), join(dir, '../..')]) if (path.startsWith(root)) chmodSync(path, 0o711);
    mkdirSync(join(made.home, '.config', 'svc'), { recursive: true });
    writeFileSync(join(made.home, SECRET_FILE), 'the home directory of the user svc runs as');
    for (const path of [
      root,
      ...Object.values(made),
      join(made.home, '.config'),
      join(made.home, '.config', 'svc'),
      join(made.home, SECRET_FILE),
      join(dir, '..'),
      join(dir, '../..'),
    ]) {
      if (path.startsWith(root)) chownSync(path, owner.uid, owner.gid);
    }
    chmodSync(made.home, 0o700);
    used.push({ dir: made.dir, tmp: made.tmp });
    return made;
  }

  /** The built CLI as `as` (or root), its API token in its environment, pg_restore held at a gate. */
  async function gatedDrill(as: { uid: number; gid: number } | undefined, d: ReturnType<typeof dirsFor>, path?: string, detached = false) {
    const gate = await toolGate(
      h,
      'pg_restore',
      join(h.shimDir, 'pg_restore'),
      '[ "$1" != --version ] && [ "$1" != -l ] && [ "$1" != --create ] && [ "$1" != --data-only ]',
    );
    // The gate's own directory must be reachable by the unprivileged user.
    await chmod(join(gate.env.PATH.split(':')[0]!, '..'), 0o755);
    const env = h.env({
      HOME: d.home,
      XDG_CONFIG_HOME: undefined,
      XDG_CACHE_HOME: undefined,
      TMPDIR: d.tmp,
      SVC_PG_BINDIR: h.cluster.serverBinDir,
      PATH: `${gate.env.PATH.split(':')[0]}:${path ?? h.env().PATH}`,
    });
    const child = execa(process.execPath, [BIN, 'restore', 'drill', DRILLED, '--work-dir', d.dir, '--report', d.report, '--json'], {
      cwd: ROOT,
      env,
      extendEnv: false,
      reject: false,
      timeout: 90_000,
      detached,
      ...(as ?? {}),
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    // A run that ends before the gate says why, rather than leave the test to wait out the gate.
    await Promise.race([gate.reached(), child.then(() => Promise.reject(new Error(`the drill ended before pg_restore:\n${stderr}`)))]);
    return { child, gate };
  }

  it.each([
    { tool: 'bubblewrap', deep: false, without: [] as string[] },
    { tool: 'bubblewrap', deep: true, without: [] as string[] },
    { tool: 'unshare', deep: true, without: ['bwrap'] },
  ])(
    'as an ordinary user, with $tool (a deep work dir: $deep): the postmaster is in namespaces of its own, sees no process of svc and no home; isolation namespace',
    async ({ deep, without }) => {
      const d = dirsFor(NOBODY, deep);
      const { child, gate } = await gatedDrill(NOBODY, d, without.length ? await pathWithout(...without) : undefined);
      const pm = await waitFor("the drill's postmaster", () => postmasterIn(d.dir));
      const svc = child.pid!;
      expect(uidOf(svc)).toBe(NOBODY.uid);
      // Another PID, user and mount namespace than svc's.
      for (const ns of ['pid', 'user', 'mnt'] as const) expect(nsOf(pm, ns), ns).not.toBe(nsOf(svc, ns));
      // The postmaster's own view of /proc: no process of svc's or of its parent (this test), and no
      // environment anywhere in it that holds the token.
      const view = `/proc/${pm}/root/proc`;
      const inside = readdirSync(view).filter((p) => /^\d+$/.test(p));
      expect(inside.length).toBeGreaterThan(0);
      const commands = inside.map((p) => {
        try {
          return readFileSync(join(view, p, 'cmdline'), 'utf8').split('\0')[0] ?? '';
        } catch {
          return '';
        }
      });
      expect(commands.filter((c) => /node|svc|vitest/.test(c))).toEqual([]);
      for (const p of inside) {
        let environ = '';
        try {
          environ = readFileSync(join(view, p, 'environ'), 'utf8');
        } catch {
          // Exited meanwhile.
        }
        expect(environ).not.toContain(API_TOKEN);
      }
      expect(readFileSync(`/proc/${svc}/environ`, 'utf8')).toContain(API_TOKEN); // what it would have read
      // The home directory (with svc's config directory in it) is not in its file system.
      expect(existsSync(`/proc/${pm}/root${d.home}/${SECRET_FILE}`)).toBe(false);
      expect(existsSync(`/proc/${pm}/root${d.home}/.config/svc`)).toBe(false);
      expect(existsSync(join(d.home, SECRET_FILE))).toBe(true);
      // Nor svc's TMPDIR (its password files), though the cluster's own directory lies beside it.
      expect(existsSync(`/proc/${pm}/root${d.tmp}`)).toBe(false);
      expect(existsSync(`/proc/${pm}/root${d.dir}`)).toBe(true);

      await gate.go();
      const r = await child;
      h.record(String(r.stdout), String(r.stderr));
      expect(r.exitCode, String(r.stderr)).toBe(0);
      const doc = JSON.parse(String(r.stdout)) as DrillDocument;
      expect(doc.drill.isolation).toBe('namespace');
      expect(doc.drill.databases[0]!.result).toBe('passed');
      expect((JSON.parse(readFileSync(join(d.report, 'drill.json'), 'utf8')) as DrillDocument).drill.isolation).toBe('namespace');
      expect(readFileSync(join(d.report, 'drill.md'), 'utf8')).toContain(', isolation namespace.');
      expect(String(r.stderr)).not.toContain('warning');
      // Stopped and removed as before: no process of the run, nothing in its work dir.
      await waitFor('no process of the drill left', () => drillProcesses(d.dir, d.tmp).length === 0 || undefined, 10_000).catch(() => undefined);
      expect(drillProcesses(d.dir, d.tmp)).toEqual([]);
      expect(await readdir(d.dir)).toEqual([]);
    },
  );

  it('as an ordinary user, the confined cluster is still cleaned up: SIGTERM is exit 143 with nothing left; after SIGKILL the next drill stops the orphaned postmaster and says so', async () => {
    const d = dirsFor(NOBODY);
    const term = await gatedDrill(NOBODY, d);
    const confined = await waitFor("the drill's postmaster", () => postmasterIn(d.dir));
    expect(nsOf(confined, 'pid')).not.toBe(nsOf(term.child.pid!, 'pid'));
    term.child.kill('SIGTERM');
    const t = await term.child;
    h.record(String(t.stdout), String(t.stderr));
    expect(t.exitCode, String(t.stderr)).toBe(143);
    expect(postmasterIn(d.dir)).toBeUndefined();
    // The gate standing for pg_restore ends at its next poll.
    await waitFor('no process of the drill left', () => drillProcesses(d.dir, d.tmp).length === 0 || undefined, 10_000).catch(() => undefined);
    expect(drillProcesses(d.dir, d.tmp)).toEqual([]);
    expect(await readdir(d.dir)).toEqual([]);

    // SIGKILL to the run's whole process group, as a CI runner's hard stop sends it: svc and the
    // gate standing for pg_restore; the postmaster runs in a session of its own and is left.
    const killed = await gatedDrill(NOBODY, d, undefined, true);
    const orphan = await waitFor("the drill's postmaster", () => postmasterIn(d.dir));
    process.kill(-killed.child.pid!, 'SIGKILL');
    await killed.child;
    expect(postmasterIn(d.dir)).toBe(orphan);
    const again = execa(process.execPath, [BIN, 'restore', 'drill', DRILLED, '--work-dir', d.dir], {
      cwd: ROOT,
      env: h.env({ HOME: d.home, XDG_CONFIG_HOME: undefined, XDG_CACHE_HOME: undefined, TMPDIR: d.tmp, SVC_PG_BINDIR: h.cluster.serverBinDir }),
      extendEnv: false,
      reject: false,
      timeout: 90_000,
      ...NOBODY,
    });
    const r = await again;
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toContain(
      `whose svc process (pid ${killed.child.pid}) no longer exists: stopped its postmaster (pid ${orphan}) and removed ${d.dir}/svc-drill-`,
    );
    await waitFor('no process of either drill left', () => drillProcesses(d.dir, d.tmp).length === 0 || undefined, 10_000).catch(() => undefined);
    expect(drillProcesses(d.dir, d.tmp)).toEqual([]);
    expect(await readdir(d.dir)).toEqual([]);
  });

  it('as an ordinary user, --keep keeps the confined cluster: its psql line reaches it on the socket, its kill line stops it', async () => {
    const d = dirsFor(NOBODY, true);
    const r = await execa(process.execPath, [BIN, 'restore', 'drill', DRILLED, '--work-dir', d.dir, '--keep'], {
      cwd: ROOT,
      env: h.env({ HOME: d.home, XDG_CONFIG_HOME: undefined, XDG_CACHE_HOME: undefined, TMPDIR: d.tmp, SVC_PG_BINDIR: h.cluster.serverBinDir }),
      extendEnv: false,
      reject: false,
      timeout: 90_000,
      ...NOBODY,
    });
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const pm = postmasterIn(d.dir)!;
    expect(pm).toBeDefined();
    expect(nsOf(pm, 'pid')).not.toBe(nsOf(process.pid, 'pid'));
    const [reach, stop] = [...String(r.stderr).matchAll(/^db_orders: kept: (.+)$/gm)].map((m) => m[1]!);
    // The socket's directory is a short link into the deep cluster directory; TCP is not listened on.
    expect(reach).toMatch(/^psql -h \/tmp\/svc-sock-[0-9a-f]{12} -p 5432 -U postgres -d svc_drill_db_orders_[0-9a-f]{8}$/);
    const asUser = (line: string) =>
      execa('sh', ['-c', line], { cwd: d.home, env: { PATH: process.env.PATH, LC_ALL: 'C' }, extendEnv: false, reject: false, ...NOBODY });
    const q = await asUser(`${reach} -X -A -t -c "SELECT current_setting('listen_addresses') = '' AND count(*) > 0 FROM orders"`);
    expect(String(q.stderr)).toBe('');
    expect(String(q.stdout).trim()).toBe('t');
    const [command, rm] = stop!.split('   # then: ');
    expect(command).toBe(`kill -INT ${pm}`);
    await asUser(command!);
    await waitFor('the kept postmaster to stop', () => postmasterIn(d.dir) === undefined || undefined, 30_000);
    expect(rm).toMatch(new RegExp(`^rm -rf ${d.dir}/svc-drill-\\w+ /tmp/svc-sock-[0-9a-f]{12}$`));
    await asUser(rm!);
    await waitFor('no process of the drill left', () => drillProcesses(d.dir, d.tmp).length === 0 || undefined, 10_000).catch(() => undefined);
    expect(drillProcesses(d.dir, d.tmp)).toEqual([]);
    expect(await readdir(d.dir)).toEqual([]);
  });

  it('as root the cluster runs as the postgres user: isolation os-user', async () => {
    const d = dirsFor({ uid: 0, gid: 0 });
    const { child, gate } = await gatedDrill(undefined, d);
    const pm = await waitFor("the drill's postmaster", () => postmasterIn(d.dir));
    const postgresUid = Number(
      readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .find((l) => l.startsWith('postgres:'))!
        .split(':')[2],
    );
    expect(uidOf(pm)).toBe(postgresUid);
    expect(uidOf(child.pid!)).toBe(0);
    await gate.go();
    const r = await child;
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect((JSON.parse(String(r.stdout)) as DrillDocument).drill.isolation).toBe('os-user');
  });

  it('no namespace to be had: --isolation required is exit 11 before any createRestore; auto says on stderr that the token could be read, and records none', async () => {
    const path = await pathWithout('bwrap', 'unshare');
    const d = dirsFor(NOBODY);
    const run = (isolation: string) =>
      execa(process.execPath, [BIN, 'restore', 'drill', DRILLED, '--work-dir', d.dir, '--json', '--isolation', isolation], {
        cwd: ROOT,
        env: h.env({ HOME: d.home, XDG_CONFIG_HOME: undefined, XDG_CACHE_HOME: undefined, TMPDIR: d.tmp, SVC_PG_BINDIR: h.cluster.serverBinDir, PATH: path }),
        extendEnv: false,
        reject: false,
        timeout: 90_000,
        ...NOBODY,
      });

    const refused = await run('required');
    h.record(String(refused.stdout), String(refused.stderr));
    expect(refused.exitCode, String(refused.stderr)).toBe(11);
    expect(String(refused.stderr)).toContain('"code":"local_tool_failed"');
    expect(String(refused.stderr)).toContain('--isolation required refuses to run it as your own user');
    expect(h.createRestoreRequests()).toHaveLength(0);
    expect(await readdir(d.dir)).toEqual([]);

    const r = await run('auto');
    h.record(String(r.stdout), String(r.stderr));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toContain("could read svc's environment and your files, the API token included");
    expect((JSON.parse(String(r.stdout)) as DrillDocument).drill.isolation).toBe('none');
    expect(h.createRestoreRequests()).toHaveLength(1);
  });

  it('--isolation takes auto or required only', async () => {
    const r = await execa(process.execPath, [BIN, 'restore', 'drill', DRILLED, '--isolation', 'off'], {
      cwd: ROOT,
      env: h.env(),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('--isolation off: give auto or required.');
    expect(h.createRestoreRequests()).toHaveLength(0);
  });
});

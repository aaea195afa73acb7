/**
 * Issue 22, items 3, 5, 7, 9 and three of 10 (cli-contract 7.15): the files a drill writes and the
 * text it shows, under a service that cannot be trusted. The built CLI against the sandbox, through a
 * loopback proxy that changes some of its answers (test/support/rewriting-proxy.ts), restoring into a
 * scratch cluster svc starts itself. After every run the harness scans stdout, stderr, the work dir
 * and the --report dir for secrets, the sandbox's lock tokens (lk_<hex>) included
 * (test/support/drill-e2e.ts).
 */
import { appendFileSync, chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { svc } from '../e2e/helpers.js';
import { expectMarkdownMatchesDocument, markdownTableRows } from '../support/drill-report.js';
import { DrillE2e, processesIn } from '../support/drill-e2e.js';
import { readJunit } from '../support/junit.js';
import type { LoopbackServer } from '../support/loopback-server.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { disposePtys, PtySession, ptySkipReason } from '../support/pty.js';
import { startRewritingProxy, type Rewrite } from '../support/rewriting-proxy.js';

const skip = pgSkipReason() ?? ptySkipReason();
if (skip) console.warn(`test/drill/drill-files.test.ts skipped: ${skip}`);

/** Lines a value could forge: a passed verdict of a database that is not in the run. */
const FORGED = 'db_x: passed: recovery time 0.1s, backup age 1m';
const ESC = '\u001b';
const BEL = '\u0007';
const HOSTILE_NAME = `orders\n${FORGED}${ESC}]0;owned${BEL}<img src=x>`;
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe.skipIf(!!skip)('svc restore drill: the files it writes and the text it shows, under an untrusted service', { timeout: 180_000 }, () => {
  const h = new DrillE2e();
  let proxy: LoopbackServer;
  let rewrite: Rewrite = () => undefined;
  beforeAll(async () => {
    await h.start();
    proxy = await startRewritingProxy(h.sb.baseUrl, (...a) => rewrite(...a));
  }, 180_000);
  afterAll(async () => {
    await proxy?.stop();
    await h.stop();
  });
  afterEach(async () => {
    rewrite = () => undefined;
    await disposePtys();
  });

  /** svc pointed at the proxy, not at the sandbox. */
  const viaProxy = () => ({ SVC_BASE_URL: proxy.baseUrl });
  const createRestores = () => proxy.exchanges.filter((e) => e.method === 'POST' && e.path === '/api/v1/restores');

  it('item 3: a service that echoes the lock token as restoreJob.id (and in an extra field) gets [redacted] in drill.json, receipts/ and stdout', async () => {
    rewrite = (e, status, body) => {
      if (e.method !== 'POST' || e.path !== '/api/v1/restores' || status !== 202) return undefined;
      const b = body as { restoreJob: Record<string, unknown>; execution: { lockToken: string; presignedS3Url: string } };
      const lock = b.execution.lockToken;
      return {
        ...b,
        restoreJob: {
          ...b.restoreJob,
          id: `rj_echo_${lock}`,
          errorMessage: `lock ${lock}`,
          debug: { lockToken: lock, presignedS3Url: b.execution.presignedS3Url },
        },
      };
    };
    const report = join(h.workDir(), 'report');
    const r = await h.drill(['db_orders', '--report', report, '--json'], { env: viaProxy() });
    expect(r.code, r.stderr).toBe(0);
    expect(createRestores()).not.toHaveLength(0);
    const drillJson = JSON.parse(readFileSync(join(report, 'drill.json'), 'utf8')) as DrillDocument;
    const receipt = JSON.parse(readFileSync(join(report, 'receipts', 'db_orders.json'), 'utf8')) as { restoreJobId: string };
    expect(drillJson.drill.databases[0]!.restoreJobId).toBe('rj_echo_[redacted]');
    expect(drillJson.drill.databases[0]!.receipt!.restoreJobId).toBe('rj_echo_[redacted]');
    expect(receipt.restoreJobId).toBe('rj_echo_[redacted]');
    // As stdout has it.
    expect(r.doc!.databases[0]!.restoreJobId).toBe('rj_echo_[redacted]');
    for (const f of ['drill.md', 'junit.xml']) expect(readFileSync(join(report, f), 'utf8')).not.toMatch(/lk_[0-9a-f]{16,}/);
    rmSync(report, { recursive: true });
  });

  it("item 7: a database name from the service and a failed check's row holding \\n, ESC, BEL and <img src=x> forge no line, split no row, put no raw control byte or HTML in drill.md", async () => {
    rewrite = (e, status, body) => {
      if (e.method !== 'GET' || e.path !== '/api/v1/databases/db_orders' || status !== 200) return undefined;
      const b = body as { database: Record<string, unknown> };
      return { database: { ...b.database, name: HOSTILE_NAME } };
    };
    const dir = h.workDir();
    const check = join(dir, 'hostile.sql');
    writeFileSync(check, `-- check: hostile\nSELECT E'row\\n${FORGED}' || chr(27) || '[2J' || chr(7) || '<img src=x>' AS v`);
    chmodSync(dir, 0o755);
    const report = join(h.workDir(), 'report');
    const r = await h.drill(['db_orders', '--check', check, '--report', report], { env: viaProxy() });
    expect(r.code, r.stderr).toBe(13);

    // stderr: one line per phase; the name and the row read \n, never start a line of their own.
    const lines = r.stderr.trimEnd().split('\n');
    expect(
      lines.filter((l) => l.startsWith('db_x')),
      r.stderr,
    ).toEqual([]);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(lines.find((l) => l.startsWith('db_orders: Using bj_0007'))).toContain(`of orders\\n${FORGED}]0;owned<img src=x> (db_orders)`);
    expect(lines.find((l) => l.startsWith('db_orders: failed at check:hostile'))).toContain(`row\\n${FORGED}[2J<img src=x>`);

    // stdout: the header and one row, the name on it.
    const table = r.stdout.trimEnd().split('\n');
    expect(table, r.stdout).toHaveLength(2);
    expect(table[1]).toMatch(/^db_orders +orders\\ndb_x: passed/);
    expect(r.stdout).not.toMatch(RAW_CONTROL);

    // drill.md: one row, no raw control byte, no HTML a renderer would draw.
    const md = readFileSync(join(report, 'drill.md'), 'utf8');
    expect(md).not.toMatch(RAW_CONTROL);
    expect(md).not.toMatch(/(?<!\\)</);
    expect(md.split('\n').filter((l) => l.startsWith('db_x'))).toEqual([]);
    const rows = markdownTableRows(md);
    expect(rows).toHaveLength(1);
    expect(rows[0]![0]).toBe(`db_orders (orders\\n${FORGED}]0;owned<img src=x>)`);
    const doc = JSON.parse(readFileSync(join(report, 'drill.json'), 'utf8')) as DrillDocument;
    expectMarkdownMatchesDocument(md, doc);
    // junit.xml: well-formed, the row as text.
    const junit = await readJunit(join(report, 'junit.xml'));
    const failed = junit.cases.find((c) => c.name === 'check:hostile')!;
    expect(failed.failure!.text).toContain(`row\n${FORGED}[2J<img src=x>`);
    expect(readFileSync(join(report, 'junit.xml'), 'utf8')).not.toMatch(RAW_CONTROL);
    rmSync(report, { recursive: true });
  });

  it('item 5: a junit.xml symlink in --report DIR is refused with exit 2 naming it, before anything is restored; its target keeps content and mode', async () => {
    const report = join(h.workDir(), 'report');
    mkdirSync(report);
    const victim = join(h.workDir(), 'victim');
    writeFileSync(victim, 'precious\n');
    chmodSync(victim, 0o600);
    symlinkSync(victim, join(report, 'junit.xml'));
    const before = createRestores().length;
    const r = await h.drill(['db_orders', '--report', report], { env: viaProxy() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: ${join(report, 'junit.xml')} is a symbolic link; svc does not write through one (its target was left untouched).`);
    expect(createRestores()).toHaveLength(before);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
    expect(readdirSync(report)).toEqual(['junit.xml']);
  });

  it('item 5: a drill.md symlink planted while the drill runs is refused after the result is printed (--json), exit 2; its target is unchanged', async () => {
    const report = join(h.workDir(), 'report');
    const victim = join(h.workDir(), 'victim');
    writeFileSync(victim, 'precious\n');
    chmodSync(victim, 0o600);
    // Planted once the drill has passed its preflight: at its createRestore.
    rewrite = (e) => {
      if (e.method === 'POST' && e.path === '/api/v1/restores') symlinkSync(victim, join(report, 'drill.md'));
      return undefined;
    };
    const r = await h.drill(['db_orders', '--report', report, '--json'], { env: viaProxy() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.doc!.databases[0]!.result).toBe('passed');
    expect(r.stderr).toContain(`${join(report, 'drill.md')} is a symbolic link`);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
    rmSync(report, { recursive: true });
  });

  it.skipIf(process.getuid?.() !== 0)(
    'item 9: a full --report disk: the result on stdout first (--json), then exit 2 naming the path and the cause, never "a bug in svc"',
    async () => {
      const mount = join(h.workDir(), 'tiny');
      mkdirSync(mount);
      await execa('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0755', 'tmpfs', mount]);
      try {
        const report = join(mount, 'report');
        mkdirSync(report);
        // The disk filled up while the drill ran.
        rewrite = (e) => {
          if (e.method === 'POST' && e.path === '/api/v1/restores') {
            try {
              for (;;) appendFileSync(join(mount, 'filler'), Buffer.alloc(4096));
            } catch {
              // ENOSPC: full.
            }
          }
          return undefined;
        };
        const r = await h.drill(['db_orders', '--report', report, '--json'], { env: viaProxy() });
        expect(r.code, r.stderr).toBe(2);
        expect(r.doc!.databases[0]!.result).toBe('passed');
        const error = (JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!) as { error: { code: string; message: string; hint: string } }).error;
        expect(error.code).toBe('file_not_written');
        expect(error.message).toMatch(new RegExp(`^Could not write ${report}/\\S+: no space left on the device \\(ENOSPC\\)\\.$`));
        expect(r.stderr).not.toContain('bug in svc');
        // No temporary file is left behind.
        expect(readdirSync(report).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      } finally {
        await execa('umount', [mount]);
      }
    },
  );

  it('item 10: a database the service lists twice is drilled once (one restore job, one row, one receipt)', async () => {
    rewrite = (e, status, body) => {
      if (e.method !== 'GET' || (!e.path.startsWith('/api/v1/databases?') && e.path !== '/api/v1/databases')) return undefined;
      const b = body as { databases: Array<{ id: string }> };
      const orders = b.databases.find((d) => d.id === 'db_orders');
      return orders ? { ...b, databases: [orders, orders] } : { ...b, databases: [] };
    };
    const before = createRestores().length;
    const report = join(h.workDir(), 'report');
    const r = await h.drill(['--all', '--report', report, '--json'], { env: viaProxy() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.doc!.databases.map((d) => d.databaseId)).toEqual(['db_orders']);
    expect(createRestores().length - before).toBe(1);
    expect(readdirSync(join(report, 'receipts'))).toEqual(['db_orders.json']);
    rmSync(report, { recursive: true });
  });

  it('item 10: --max-age just under the backup age names the two with the precision that tells them apart', async () => {
    const got = await svc(['backups', 'get', 'bj_0007', '--json'], { env: h.sb.env('full') });
    // The recovery point runs from the backup's start (cli-contract 7.10).
    const age = Math.round((Date.now() - Date.parse((JSON.parse(got.stdout) as { startedAt: string }).startedAt)) / 1000);
    // The age cut to its two largest units (what the detail used to show for both).
    const unit = age >= 86_400 ? 3600 : age >= 3600 ? 60 : 1;
    const maxAge = Math.floor(age / unit) * unit;
    const r = await h.drill(['db_orders', '--max-age', `${maxAge}s`, '--json']);
    expect(r.code, r.stderr).toBe(13);
    const detail = r.doc!.databases[0]!.checks.find((c) => c.name === 'max_age')!.detail!;
    const [, shown, most] = /^backup age (\S+) \(from its start\), at most (\S+)$/.exec(detail) ?? [];
    expect(shown, detail).toBeDefined();
    expect(shown).not.toBe(most);
    expect(shown!.startsWith(most!), detail).toBe(true);
  });

  it('item 10: at 40 columns the kept: command lines break only as shell continuations, and each runs as one command', async () => {
    const workDir = h.workDir();
    const session = await PtySession.start(['restore', 'drill', 'db_orders', '--keep', '--work-dir', workDir], {
      env: h.sb.env('drill'),
      cols: 40,
      rows: 60,
      timeoutMs: 120_000,
    });
    const result = await session.exited;
    try {
      expect(result.exitCode, result.screen).toBe(0);
      const screen = result.screen.split('\n');
      // Each kept command: from its `db_orders: kept:` line to the first line without a trailing backslash.
      const commands: string[][] = [];
      screen.forEach((line, i) => {
        if (!line.startsWith('db_orders: kept: ')) return;
        const end = screen.findIndex((l, j) => j >= i && !l.endsWith(' \\'));
        commands.push(screen.slice(i, end + 1));
      });
      expect(commands, result.screen).toHaveLength(2);
      for (const lines of commands) {
        expect(lines.length, lines.join('\n')).toBeGreaterThan(1);
        for (const line of lines.slice(0, -1)) expect(line.endsWith(' \\'), line).toBe(true);
      }
      // Pasted into a shell as printed: the psql line reaches the kept database, the stop line stops the cluster.
      const asTyped = (lines: string[]) => lines.join('\n').replace(/^db_orders: kept: /, '');
      const psql = await execa('sh', ['-c', `${asTyped(commands[0]!)} -X -A -t -c 'SELECT count(*) FROM customers'`], {
        env: { PATH: process.env.PATH, LC_ALL: 'C' },
        extendEnv: false,
      });
      expect(psql.stdout.trim()).toBe('1000');
      const stop = asTyped(commands[1]!);
      expect(stop).toMatch(/pg_ctl/);
      await execa('sh', ['-c', stop]);
    } finally {
      for (const p of processesIn(workDir)) process.kill(Number(p.split(' ')[0]), 'SIGKILL');
      for (const f of readdirSync(workDir)) rmSync(join(workDir, f), { recursive: true, force: true });
    }
  });
});

import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { ensureBuilt, spawnSvc } from '../support/built-cli.js';
import { drillApi, drillProcesses, DRILLED } from '../support/drill-signals.js';
import { pgSkipReason } from '../support/pg-cluster.js';
import { RestoreHarness } from '../support/restore-harness.js';
import { expectNoSecretsLeft } from '../support/secret-scan.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-keep.test.ts skipped: ${skip}`);

/**
 * --keep with a failed restore (cli-contract 9.13): pg_restore restores, then exits 1. svc used to
 * say the database "was kept as asked (--keep-partial)" with a dropdb line, then drop it, leave the
 * cluster running and print no line to reach or stop it. Now what --keep names stays: the scratch
 * database, the cluster, and the psql and pg_ctl ... stop lines, on stderr and in the report.
 * Built CLI, real PostgreSQL.
 */
describe.skipIf(!!skip)("--keep keeps a failed restore's scratch database and says how to reach and stop it", { timeout: 120_000 }, () => {
  const h = new RestoreHarness();
  let failing: { PATH: string };
  const used: Array<{ dir: string; tmp: string }> = [];

  beforeAll(async () => {
    await Promise.all([ensureBuilt(), h.start()]);
    await chmod(h.scratch, 0o711);
    // pg_restore that restores everything, then fails: a restore_clean failure with a whole database behind it.
    const bin = join(h.scratch, 'failing-bin');
    await mkdir(bin);
    await writeFile(
      join(bin, 'pg_restore'),
      [
        '#!/bin/sh',
        `case "$1" in --version|-l|--create|--data-only) exec '${h.shimDir}/pg_restore' "$@";; esac`,
        `'${h.shimDir}/pg_restore' "$@"`,
        'echo "pg_restore: error: planted failure" >&2',
        'exit 1',
        '',
      ].join('\n'),
    );
    await chmod(join(bin, 'pg_restore'), 0o755);
    failing = { PATH: `${bin}:${h.env().PATH}` };
  }, 300_000);
  afterAll(() => h.stop());
  beforeEach(async () => {
    await h.reset();
    drillApi(h);
  });
  afterEach(async () => {
    for (const { dir, tmp } of used.splice(0)) {
      for (const p of drillProcesses(dir, tmp)) {
        try {
          process.kill(Number(p.split(' ')[0]), 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    }
    await h.cluster
      .psql("SELECT string_agg(format('DROP DATABASE %I WITH (FORCE)', datname), '; ') FROM pg_database WHERE datname LIKE 'svc\\_drill\\_%'")
      .then(async (drops) => {
        for (const sql of drops.split('; ').filter(Boolean)) await h.cluster.psql(sql);
      });
  });

  async function run(args: string[]) {
    const dir = await mkdtemp(join(h.scratch, 'work-'));
    await chmod(dir, 0o711);
    const tmp = await mkdtemp(join(h.scratch, 'tmp-'));
    used.push({ dir, tmp });
    const report = join(dir, '..', `${dir.split('/').pop()}-report`);
    const r = await spawnSvc(['restore', 'drill', DRILLED, '--keep', '--json', '--report', report, '--work-dir', dir, ...args], {
      env: h.env({ TMPDIR: tmp, SVC_PG_BINDIR: h.cluster.serverBinDir, ...failing }),
      timeoutMs: 60_000,
    });
    h.record(String(r.stdout), String(r.stderr));
    const stderr = String(r.stderr);
    expect(r.exitCode, stderr).toBe(13);
    const doc = JSON.parse(String(r.stdout)) as DrillDocument;
    const db = doc.drill.databases[0]!;
    expect(db.failure, stderr).toMatchObject({ check: 'restore_clean' });
    const name = /restore into (svc_drill_\w+)/.exec(stderr)![1]!;
    expect(db.failure!.message).toContain(`The scratch database "${name}" was kept as asked (--keep); it may be partly restored.`);
    expect(stderr).not.toContain('--keep-partial');
    expect(stderr).not.toContain('dropdb');
    const kept = [...stderr.matchAll(/^db_orders: kept: (.+)$/gm)].map((m) => m[1]!);
    // The same lines in drill.json and drill.md.
    expect(db.kept).toEqual(kept);
    expect(JSON.parse(await readFile(join(report, 'drill.json'), 'utf8')).drill.databases[0].kept).toEqual(kept);
    const md = await readFile(join(report, 'drill.md'), 'utf8');
    for (const line of kept) expect(md).toContain(`\n${line}\n`);
    expect(md).toContain('## Kept for inspection (--keep)');
    return { name, kept, dir, tmp, stderr, stdout: String(r.stdout) };
  }

  it('--scratch auto: the partly restored database stays in a running cluster; the printed psql line reaches it and the pg_ctl line stops it', async () => {
    const r = await run([]);
    expect(r.kept).toHaveLength(2);
    const [psqlLine, stopLine] = r.kept as [string, string];
    expect(psqlLine).toMatch(new RegExp(`^psql -h ${r.dir}/svc-drill-\\w+ -p \\d+ -U postgres -d ${r.name}$`));
    expect(stopLine).toMatch(/pg_ctl -D \S+\/data stop -m fast {3}# then: rm -rf \S+$/);
    const args = psqlLine.split(' ').slice(1);
    const count = await execa('psql', [...args, '-X', '-A', '-t', '-c', 'SELECT count(*) FROM orders'], {
      env: { PATH: process.env.PATH, LC_ALL: 'C' },
      extendEnv: false,
    });
    expect(count.stdout.trim()).toBe('5000');
    // The kept cluster is the user's: no owner record, so no later drill takes it for an orphan.
    const [cluster] = await readdir(r.dir);
    expect(await readdir(join(r.dir, cluster!))).not.toContain('owner.json');

    const [command, rm] = stopLine.split('   # then: ');
    await execa('sh', ['-c', command!]);
    await execa('sh', ['-c', rm!]);
    expect(drillProcesses(r.dir, r.tmp)).toEqual([]);
    expect(await readdir(r.dir)).toEqual([]);
    await expectNoSecretsLeft({ texts: [r.stdout, r.stderr], paths: [h.scratch] }, h.secretSet());
  });

  it("--scratch <dsn>: the database stays on the operator's server, marked kept, and a later drill leaves it there", async () => {
    const r = await run(['--scratch', h.dsn('postgres', true)]);
    expect(r.kept).toEqual([`psql ${h.redacted(r.name)}`]);
    expect(await h.cluster.psql('SELECT count(*) FROM orders', r.name)).toBe('5000');
    // The kept database is the backup's: svc's marker is gone from it; its owner role (not the database) says it was kept.
    expect(await h.cluster.psql(`SELECT coalesce(shobj_description(oid, 'pg_database'), '(none)') FROM pg_database WHERE datname = '${r.name}'`)).toBe(
      '(none)',
    );
    expect(await h.cluster.psql(`SELECT shobj_description(datdba, 'pg_authid') FROM pg_database WHERE datname = '${r.name}'`)).toMatch(
      /^svc restore drill: kept \(--keep\) at /,
    );

    const again = await spawnSvc(['restore', 'drill', DRILLED, '--scratch', h.dsn('postgres', true), '--work-dir', r.dir], {
      env: h.env({ TMPDIR: r.tmp }),
      timeoutMs: 60_000,
    });
    h.record(String(again.stdout), String(again.stderr));
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(String(again.stderr)).not.toContain(r.name);
    expect(await h.cluster.psql(`SELECT count(*) FROM pg_database WHERE datname = '${r.name}'`)).toBe('1');
    await expectNoSecretsLeft({ texts: [r.stdout, r.stderr], paths: [h.scratch] }, h.secretSet());
  });
});

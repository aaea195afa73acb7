/**
 * rows_match (cli-contract 9.11) with the built CLI and real PostgreSQL: each table's restored rows
 * against the rows the archive holds, counted by a second pg_restore while the restore runs.
 *
 * db_orders' backups serve a dump of the seed database plus `events` (100 rows, 10 of them
 * archived) and a materialized view whose query calls a function that deletes the archived events.
 * pg_restore refreshes materialized views after loading every table's data, so the restore drops
 * those 10 rows, exits 0, and every other check passes: only rows_match can tell. db_billing's
 * backups serve the committed billing dump, which restores whole.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/restore/receipt.js';
import { DrillE2e } from '../support/drill-e2e.js';
import { findPgBinDir, pgSkipReason } from '../support/pg-cluster.js';
import { workerCluster } from '../support/worker-cluster.js';
import { writeSandboxDataWithArtifact } from '../support/sandbox-data.js';
import { dumpDatabase, seedDatabase } from '../support/seed.js';

const skip = pgSkipReason();
const CHECKS = ['backup_selected', 'artifact_verified', 'restore_clean', 'objects_present', 'data_present', 'rows_match'];
if (skip) console.warn(`test/drill/drill-rows-match.test.ts skipped: ${skip}`);

/** Rows go missing on restore: REFRESH MATERIALIZED VIEW, run by pg_restore after the data, calls purge_archived(). */
const LOSSY = `
CREATE TABLE public.events (id int PRIMARY KEY, archived boolean NOT NULL DEFAULT false);
CREATE FUNCTION public.purge_archived() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  DELETE FROM public.events WHERE archived;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;
CREATE MATERIALIZED VIEW public.purge_report AS SELECT public.purge_archived() AS purged;
INSERT INTO public.events SELECT g, g % 10 = 0 FROM generate_series(1, 100) g;
`;

describe.skipIf(!!skip)('rows_match: each restored table holds the rows the archive holds', { timeout: 180_000 }, () => {
  const data = mkdtempSync(join(tmpdir(), 'svc-drill-rows-'));
  const h = new DrillE2e();
  /** The source's own counts, read before the dump: what the archive holds. */
  let source: Record<string, number> = {};

  beforeAll(async () => {
    const archive = join(data, 'acme-orders.pgdump');
    const cluster = await workerCluster();
    try {
      await seedDatabase(cluster, 'acme_orders');
      await cluster.psql(LOSSY, 'acme_orders');
      source = JSON.parse(
        await cluster.psql(
          "SELECT json_build_object('customers', (SELECT count(*) FROM customers), 'orders', (SELECT count(*) FROM orders), 'events', (SELECT count(*) FROM events))",
          'acme_orders',
        ),
      );
      await dumpDatabase(cluster, 'acme_orders', archive);
    } finally {
      await cluster.stop();
    }
    await writeSandboxDataWithArtifact(join(data, 'sandbox'), 'acme-orders', archive);
    await h.start({ dataDir: join(data, 'sandbox') });
  }, 180_000);
  afterAll(async () => {
    await h.stop();
    rmSync(data, { recursive: true, force: true });
  });

  /** A restored database's checks: every one before rows_match passed. */
  const restoredThen = (rowsMatch: string) => [...CHECKS.slice(0, -1).map((c) => [c, 'passed']), ['rows_match', rowsMatch]];
  const receiptOf = (report: string, id: string) => JSON.parse(readFileSync(join(report, 'receipts', `${id}.json`), 'utf8')) as Receipt;

  it('a dump that restores whole: rows_match passes after data_present, with the totals in the check and the receipt', async () => {
    const report = join(h.workDir(), 'report');
    const r = await h.drill(['db_billing', '--json', '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    const db = r.doc!.databases[0]!;
    expect(db.checks.map((c) => [c.name, c.status])).toEqual(restoredThen('passed'));
    // The committed billing dump: plans 4, accounts 400, invoices 2,400, payments 1,800.
    expect(db.checks.find((c) => c.name === 'rows_match')!.detail).toBe('4 table(s), 4,604 row(s), each as many as the archive holds');
    expect(receiptOf(report, 'db_billing').rowsMatch).toEqual({
      tables: 4,
      archiveRows: 4604,
      restoredRows: 4604,
      mismatches: [],
      extensionTables: 0,
      uncounted: 0,
    });
    expect(readFileSync(join(report, 'junit.xml'), 'utf8')).toContain('<testcase classname="db_billing" name="rows_match"');
  });

  it('rows lost on restore: rows_match fails naming the table and both counts; every other check passes; exit 13', async () => {
    expect(source).toEqual({ customers: 1000, orders: 5000, events: 100 });
    const report = join(h.workDir(), 'report');
    const r = await h.drill(['db_orders', '--json', '--report', report]);
    expect(r.code, r.stderr).toBe(13);
    const db = r.doc!.databases[0]!;
    expect(db.checks.map((c) => [c.name, c.status])).toEqual(restoredThen('failed'));
    const detail = '1 of 3 table(s) differ: public.events: 100 in the archive, 90 restored';
    expect(db.checks.find((c) => c.name === 'rows_match')!.detail).toBe(detail);
    expect(db.failure).toEqual({ check: 'rows_match', code: 'rows_mismatch', message: `The restored row counts differ from the archive's: ${detail}.` });
    expect(db.exitCode).toBe(13);
    expect(r.stderr).toContain('The drill failed for 1 of 1 database(s): db_orders (rows_match).');

    expect(receiptOf(report, 'db_orders').rowsMatch).toEqual({
      tables: 3,
      archiveRows: 6100,
      restoredRows: 6090,
      mismatches: [{ table: 'public.events', archive: 100, restored: 90 }],
      extensionTables: 0,
      uncounted: 0,
    });
    const md = readFileSync(join(report, 'drill.md'), 'utf8');
    expect(md).toContain('- check: `rows_match`');
    expect(md).toContain('public.events: 100 in the archive, 90 restored');
    const junit = readFileSync(join(report, 'junit.xml'), 'utf8');
    expect(junit).toMatch(
      /<testcase classname="db_orders" name="rows_match" time="[\d.]+">\n {4}<failure message="[^"]*public\.events: 100 in the archive, 90 restored" type="rows_mismatch">/,
    );
  });

  it('--no-rows-check: rows_match is recorded as skipped, and the same backup passes', async () => {
    const report = join(h.workDir(), 'report');
    const r = await h.drill(['db_orders', '--no-rows-check', '--json', '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    const db = r.doc!.databases[0]!;
    expect(db.checks.find((c) => c.name === 'rows_match')).toEqual({
      name: 'rows_match',
      status: 'skipped',
      durationMs: 0,
      detail: 'turned off (--no-rows-check)',
    });
    expect(db.checks.map((c) => c.name)).toEqual(CHECKS);
    expect(receiptOf(report, 'db_orders').rowsMatch).toBeNull();
    expect(readFileSync(join(report, 'junit.xml'), 'utf8')).toContain(
      '<testcase classname="db_orders" name="rows_match" time="0.000">\n    <skipped message="turned off (--no-rows-check)"/>',
    );
  });

  it("the data check and rows_match run on one session of svc's own, not through psql: a psql on PATH that refuses their queries changes nothing", async () => {
    // psql on PATH: every script passes to the real psql except the data checks' (query_to_xml), which it refuses and notes.
    const shim = join(data, 'psql-shim');
    mkdirSync(shim, { recursive: true });
    const refused = join(shim, 'refused');
    writeFileSync(
      join(shim, 'psql'),
      [
        '#!/bin/sh',
        `case "$1" in --version) exec '${join(findPgBinDir()!, 'psql')}' "$@";; esac`,
        'input=$(cat)',
        `case "$input" in *query_to_xml*) echo x >> '${refused}'; echo 'ERROR:  this psql refuses the data checks' >&2; exit 3;; esac`,
        `printf '%s\\n' "$input" | exec '${join(findPgBinDir()!, 'psql')}' "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(join(shim, 'psql'), 0o755);
    const r = await h.drill(['db_billing', '--json'], { env: { PATH: `${shim}:${process.env.PATH}` } });
    expect(r.code, r.stderr).toBe(0);
    const db = r.doc!.databases[0]!;
    expect(db.checks.map((c) => [c.name, c.status])).toEqual(restoredThen('passed'));
    expect(db.checks.find((c) => c.name === 'rows_match')!.detail).toBe('4 table(s), 4,604 row(s), each as many as the archive holds');
    expect(existsSync(refused)).toBe(false);
  });

  it('a restore that fails while the archive is still being counted ends the counting pg_restore with it, not at exit', async () => {
    // pg_restore on PATH: the counting one (--data-only) holds until it is killed, and notes when;
    // the restore itself notes when it starts, waits until its count has started, then fails.
    const shim = join(data, 'shim');
    mkdirSync(join(shim, 'bin'), { recursive: true });
    const file = (name: string) => join(shim, name);
    writeFileSync(
      join(shim, 'bin', 'pg_restore'),
      [
        '#!/bin/sh',
        `if [ "$1" = --data-only ]; then echo x >> '${file('counting')}'; trap "date +%s%N >> '${file('killed')}'; exit 143" TERM INT; while :; do sleep 0.05; done; fi`,
        'if [ "$1" = --verbose ]; then',
        `  date +%s%N >> '${file('restores')}'; n=$(wc -l < '${file('restores')}'); i=0`,
        `  while [ "$(cat '${file('counting')}' 2>/dev/null | wc -l)" -lt "$n" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done`,
        "  echo 'pg_restore: error: the test says no' >&2; exit 1",
        'fi',
        `exec '${join(findPgBinDir()!, 'pg_restore')}' "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(join(shim, 'bin', 'pg_restore'), 0o755);
    const r = await h.drill(['db_billing', 'db_orders', '--parallel', '1', '--json'], { env: { PATH: `${join(shim, 'bin')}:${process.env.PATH}` } });
    expect(r.code, r.stderr).toBe(13);
    for (const db of r.doc!.databases) {
      expect(db.failure).toMatchObject({ check: 'restore_clean' });
      expect(db.failure!.message).toContain('the test says no');
      expect(db.checks.find((c) => c.name === 'rows_match')).toMatchObject({ status: 'skipped', detail: 'nothing restored' });
    }
    const times = (name: string) => readFileSync(file(name), 'utf8').trim().split('\n').map(BigInt);
    const [killed, restores] = [times('killed'), times('restores')];
    expect(killed).toHaveLength(2);
    expect(restores).toHaveLength(2);
    // The first database's count was ended before the second database's restore began.
    expect(killed[0]! < restores[1]!, `killed ${killed.join(', ')}; restores began ${restores.join(', ')}`).toBe(true);
    // h.drill has checked that no process whose command line names the work dir (the archive's path) is left.
  });
});

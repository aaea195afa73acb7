import { resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { CliError, UsageError } from '../../errors.js';
import type { DatabaseDrill } from '../../drill/document.js';
import { drillRow, writeReport } from '../../drill/report-files.js';
import { parseDuration } from '../../drill/duration.js';
import { runDrill, type DrillOptions } from '../../drill/run-drill.js';
import { parseShard } from '../../drill/shard.js';
import { note, table, type Column } from '../../output/writer.js';
import { DEFAULT_CONNECTIONS, MAX_CONNECTIONS } from '../../restore/plan.js';
import { parseTarget } from '../../restore/target.js';
import type { Session } from '../../session.js';
import { Reporter } from '../../ui/reporter.js';
import { isoTimestamp, positiveInt, requireId } from '../shared/args.js';
import type { Env } from '../shared/verb.js';
import { restoreDeps } from './engine-options.js';

export interface DrillFlags {
  all?: boolean;
  backup?: string;
  latest?: boolean;
  before?: string;
  scratch?: string;
  pgBindir?: string;
  check?: string[];
  maxAge?: string;
  parallel?: string;
  shard?: string;
  report?: string;
  keep?: boolean;
  dryRun?: boolean;
  jobs?: string;
  connections?: string;
  workDir?: string;
  analyze?: boolean;
  /** commander's --no-rows-check sets this false. */
  rowsCheck?: boolean;
}

export interface DrillCommandOptions extends DrillOptions {
  /** The raw --scratch DSN: a secret whenever it carries a password. */
  rawScratch?: string;
}

export const MAX_PARALLEL = 8;

/** Every local check of `svc restore drill` (cli-contract 9): a bad flag is exit 2 before any request. */
export function options(ids: string[], flags: DrillFlags, env: Env): DrillCommandOptions {
  // commander hands a variadic argument over as one array.
  const given = [...new Set((ids as unknown as Array<string | string[]>).flat().map((id) => requireId(id, "database id")))];
  if (flags.all && given.length) throw new UsageError('Give database ids or --all, not both.');
  if (!flags.all && !given.length) throw new UsageError('Name the databases to drill, or --all for every database of the organization.', 'For example: svc restore drill db_orders, or svc restore drill --all --shard 1/4');
  if (flags.backup !== undefined && (flags.all || given.length !== 1)) throw new UsageError('--backup names one backup: drill exactly one database with it.');
  if ([flags.backup !== undefined, flags.latest, flags.before !== undefined].filter(Boolean).length > 1) {
    throw new UsageError('--backup, --latest and --before each choose the backup: give one of them.');
  }
  const rawScratch = flags.scratch === undefined || flags.scratch === 'auto' ? undefined : flags.scratch;
  const pgBindir = flags.pgBindir ?? env.SVC_PG_BINDIR;
  if (rawScratch !== undefined && flags.pgBindir !== undefined) throw new UsageError('--pg-bindir is for --scratch auto; a scratch DSN names a server that runs already.');
  const server = rawScratch === undefined ? undefined : parseTarget(rawScratch, env);
  return {
    databases: flags.all ? 'all' : given,
    backupJobId: flags.backup === undefined ? undefined : requireId(flags.backup, '--backup'),
    before: flags.before === undefined ? undefined : isoTimestamp(flags.before, '--before'),
    scratch: server ? { kind: 'dsn', server } : { kind: 'auto', ...(pgBindir ? { pgBindir: { dir: resolve(pgBindir), flag: flags.pgBindir ? '--pg-bindir' : 'SVC_PG_BINDIR' } } : {}) },
    rawScratch,
    checkFiles: (flags.check ?? []).map((f) => resolve(requireId(f, '--check'))),
    maxAgeSeconds: flags.maxAge === undefined ? undefined : parseDuration(flags.maxAge, '--max-age'),
    parallel: flags.parallel === undefined ? 1 : positiveInt(flags.parallel, '--parallel', MAX_PARALLEL),
    shard: flags.shard === undefined ? undefined : parseShard(flags.shard),
    reportDir: flags.report === undefined ? undefined : resolve(requireId(flags.report, '--report')),
    keep: flags.keep === true,
    dryRun: flags.dryRun === true,
    jobs: flags.jobs === undefined ? undefined : positiveInt(flags.jobs, '--jobs', 64),
    connections: flags.connections === undefined ? DEFAULT_CONNECTIONS : positiveInt(flags.connections, '--connections', MAX_CONNECTIONS),
    workDir: resolve(flags.workDir ?? tmpdir()),
    analyze: flags.analyze !== false,
    rowsCheck: flags.rowsCheck !== false,
  };
}

/**
 * The database's id and its name in columns of their own, so that on a narrow terminal the name
 * gives way (shortened, then left out) and the id stays whole; then the recovery time, the age and
 * the backup's id are left out, before the result and the failed check.
 */
const columns: Column<DatabaseDrill>[] = [
  { header: 'DATABASE', value: (d) => d.databaseId },
  { header: 'NAME', value: (d) => (d.name && d.name !== d.databaseId ? d.name : '-'), shrink: true, drop: 1 },
  { header: 'BACKUP', value: (d) => drillRow(d).backup, drop: 3 },
  // The age a drill proved and the recovery time it took appear for every database (never dropped).
  { header: 'AGE', value: (d) => drillRow(d).age },
  { header: 'RECOVERY', value: (d) => drillRow(d).recovery },
  { header: 'RESULT', value: (d) => d.result },
  { header: 'FAILED CHECK', short: 'FAILED', value: (d) => drillRow(d).failed, drop: 2 },
];

/** `svc restore drill`: the drill, its table on stdout (or the drill document with --json), the report files; exit 13 when any database failed. */
export async function run(opts: DrillCommandOptions, session: Session): Promise<void> {
  if (opts.scratch.kind === 'dsn' && opts.scratch.server.password !== undefined) {
    session.secrets.add(opts.rawScratch);
    session.ui.warn('The password in --scratch is visible to other local users in the process list; prefer PGPASSWORD or ~/.pgpass.');
  }
  const { ui } = session;
  // The restore engine's own lines are for one restore at a time; a drill says one line per database and phase.
  const quiet = new Reporter(session.ctx.stderr, { quiet: true, animated: false, paint: ui.paint, unicode: false });
  const doc = await runDrill(opts, {
    api: () => session.api(),
    deps: { ...restoreDeps(session), reporter: quiet },
    now: () => session.now(),
    progress: (id, text) => ui.info(`${id}: ${text}`),
    heartbeat: !session.ctx.stderrIsTTY,
    note: (text) => ui.info(text),
  });
  if (opts.reportDir) await writeReport(opts.reportDir, doc);
  const d = doc.drill;
  const summary = opts.dryRun
    ? `Dry run: ${d.passed} database(s) have a backup to drill, ${d.failed} have none. Nothing was created.`
    : `${d.passed} passed, ${d.failed} failed. The service was not told: API v1 has no operation to record a drill.`;
  await session.out.render(doc, [
    table(d.databases, columns, 'No database to drill (an empty organization, or an empty shard).'),
    note(summary, d.failed ? 'yellow' : undefined),
    ...(opts.reportDir ? [note(`Report: ${opts.reportDir}/drill.md, drill.json, junit.xml and receipts/.`)] : []),
  ]);
  if (d.failed) {
    const failed = d.databases.filter((x) => x.result === 'failed').map((x) => `${x.databaseId} (${x.failure?.check})`);
    const what = opts.dryRun ? 'would fail: no backup to drill for' : 'failed for';
    throw new CliError('drill_failed', `The drill ${what} ${failed.length} of ${d.databases.length} database(s): ${failed.join(', ')}.`);
  }
}

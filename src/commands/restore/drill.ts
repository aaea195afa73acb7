import { resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { CliError, UsageError } from '../../errors.js';
import { writeReport } from '../../drill/report-files.js';
import { drillColumns, quietColumns } from './drill-table.js';
import { DEFAULT_DRIFT, parseShare } from '../../drill/drift.js';
import { DrillInterrupted } from '../../drill/run-document.js';
import { parseDuration } from '../../drill/duration.js';
import { runDrill, type DrillOptions } from '../../drill/run-drill.js';
import { parseShard } from '../../drill/shard.js';
import type { DrillDocument } from '../../drill/document.js';
import type { IsolationMode } from '../../drill/isolation.js';
import { checkPushgatewayUrl } from '../../drill/pushgateway.js';
import { terminalLine } from '../../output/terminal-text.js';
import { UserFiles } from '../../output/user-file.js';
import { note, table } from '../../output/writer.js';
import { DEFAULT_CONNECTIONS, MAX_CONNECTIONS } from '../../restore/plan.js';
import { parseTarget } from '../../restore/target/target.js';
import type { Session } from '../../session.js';
import { Reporter } from '../../ui/reporter.js';
import { isoTimestamp, positiveInt, requireId } from '../../core/args.js';
import type { Env } from '../shared/verb.js';
import { restoreDeps } from '../../core/restore/engine-options.js';

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
  strict?: boolean;
  dryRun?: boolean;
  jobs?: string;
  connections?: string;
  workDir?: string;
  analyze?: boolean;
  metricsFile?: string;
  pushgateway?: string;
  /** commander's --no-rows-check sets this false. */
  rowsCheck?: boolean;
  baseline?: string;
  driftMinRows?: string;
  maxShrink?: string;
  deadline?: string;
  isolation?: string;
}

export interface DrillCommandOptions extends DrillOptions {
  /** The raw --scratch DSN: a secret whenever it carries a password. */
  rawScratch?: string;
  /** --metrics-file and --pushgateway (cli-contract 9.14). */
  metricsFile?: string;
  pushgateway?: string;
}

export const MAX_PARALLEL = 8;

/** Every local check of `svc restore drill` (cli-contract 9): a bad flag is exit 2 before any request. */
export function options(ids: string[], flags: DrillFlags, env: Env): DrillCommandOptions {
  // commander hands a variadic argument over as one array.
  const given = [...new Set((ids as unknown as Array<string | string[]>).flat().map((id) => requireId(id, 'database id')))];
  if (flags.all && given.length) throw new UsageError('Give database ids or --all, not both.');
  if (!flags.all && !given.length)
    throw new UsageError(
      'Name the databases to drill, or --all for every database of the organization.',
      'For example: svc restore drill db_orders, or svc restore drill --all --shard 1/4',
    );
  if (flags.backup !== undefined && (flags.all || given.length !== 1)) throw new UsageError('--backup names one backup: drill exactly one database with it.');
  if ([flags.backup !== undefined, flags.latest, flags.before !== undefined].filter(Boolean).length > 1) {
    throw new UsageError('--backup, --latest and --before each choose the backup: give one of them.');
  }
  const rawScratch = flags.scratch === undefined || flags.scratch === 'auto' ? undefined : flags.scratch;
  const pgBindir = flags.pgBindir ?? env.SVC_PG_BINDIR;
  if (rawScratch !== undefined && flags.pgBindir !== undefined)
    throw new UsageError('--pg-bindir is for --scratch auto; a scratch DSN names a server that runs already.');
  const server = rawScratch === undefined ? undefined : parseTarget(rawScratch, env);
  if (flags.dryRun && (flags.metricsFile !== undefined || flags.pushgateway !== undefined)) {
    throw new UsageError('--metrics-file and --pushgateway record what a drill proved; a --dry-run restores nothing.');
  }
  return {
    databases: flags.all ? 'all' : given,
    backupJobId: flags.backup === undefined ? undefined : requireId(flags.backup, '--backup'),
    before: flags.before === undefined ? undefined : isoTimestamp(flags.before, '--before'),
    scratch: server
      ? { kind: 'dsn', server }
      : { kind: 'auto', ...(pgBindir ? { pgBindir: { dir: resolve(pgBindir), flag: flags.pgBindir ? '--pg-bindir' : 'SVC_PG_BINDIR' } } : {}) },
    rawScratch,
    checkFiles: (flags.check ?? []).map((f) => resolve(requireId(f, '--check'))),
    maxAgeSeconds: flags.maxAge === undefined ? undefined : parseDuration(flags.maxAge, '--max-age'),
    parallel: flags.parallel === undefined ? 1 : positiveInt(flags.parallel, '--parallel', MAX_PARALLEL),
    shard: flags.shard === undefined ? undefined : parseShard(flags.shard),
    reportDir: flags.report === undefined ? undefined : resolve(requireId(flags.report, '--report')),
    keep: flags.keep === true,
    strict: flags.strict === true,
    dryRun: flags.dryRun === true,
    jobs: flags.jobs === undefined ? undefined : positiveInt(flags.jobs, '--jobs', 64),
    connections: flags.connections === undefined ? DEFAULT_CONNECTIONS : positiveInt(flags.connections, '--connections', MAX_CONNECTIONS),
    workDir: resolve(flags.workDir ?? tmpdir()),
    analyze: flags.analyze !== false,
    metricsFile: flags.metricsFile === undefined ? undefined : resolve(requireId(flags.metricsFile, '--metrics-file')),
    pushgateway: flags.pushgateway === undefined ? undefined : checkPushgatewayUrl(flags.pushgateway),
    rowsCheck: flags.rowsCheck !== false,
    ...driftOptions(flags),
    isolation: isolationMode(flags.isolation),
    deadlineSeconds: flags.deadline === undefined ? undefined : parseDuration(flags.deadline, '--deadline'),
  };
}

/** --baseline and no_drift's limits (cli-contract 9.17); the baseline itself is read before any createRestore. */
function driftOptions(flags: DrillFlags): Pick<DrillOptions, 'baseline' | 'drift'> {
  if (flags.baseline === undefined && (flags.driftMinRows !== undefined || flags.maxShrink !== undefined)) {
    throw new UsageError('--drift-min-rows and --max-shrink set the limits of no_drift, which compares with a --baseline: give one.');
  }
  if (flags.baseline !== undefined && flags.rowsCheck === false)
    throw new UsageError('--baseline compares the rows rows_match counts: it cannot be used with --no-rows-check.');
  return {
    baseline: flags.baseline === undefined ? undefined : resolve(requireId(flags.baseline, '--baseline')),
    drift: {
      minRows: flags.driftMinRows === undefined ? DEFAULT_DRIFT.minRows : positiveInt(flags.driftMinRows, '--drift-min-rows', 1e12),
      maxShrink: flags.maxShrink === undefined ? DEFAULT_DRIFT.maxShrink : parseShare(flags.maxShrink, '--max-shrink'),
    },
  };
}

function isolationMode(given: string | undefined): IsolationMode {
  if (given === undefined || given === 'auto' || given === 'required') return given ?? 'auto';
  throw new UsageError(
    `--isolation ${given}: give auto or required.`,
    "required refuses to run the scratch cluster where it could see svc's processes and files (exit 11).",
  );
}

/** `svc restore drill`: the drill, its table on stdout (or the drill document with --json), the report files; exit 13 when any database failed. */
export async function run(opts: DrillCommandOptions, session: Session): Promise<void> {
  if (opts.scratch.kind === 'dsn' && opts.scratch.server.password !== undefined) {
    session.secrets.add(opts.rawScratch);
    session.ui.warn('The password in --scratch is visible to other local users in the process list; prefer PGPASSWORD or ~/.pgpass.');
  }
  const { ui } = session;
  // The restore engine's own lines are for one restore at a time; a drill says one line per database
  // and phase. On a terminal, one database at a time, the engine's figures (the download's bar,
  // pg_restore's objects and table) run under that line, and are cleared as the phase ends.
  const figures = ui.isAnimated && opts.parallel === 1 && !session.settings.json;
  const quiet = new Reporter(session.ctx.stderr, {
    quiet: !figures,
    animated: figures,
    spinnersOnly: figures,
    paint: ui.paint,
    unicode: false,
    width: ui.width,
  });
  let doc: DrillDocument;
  try {
    doc = await runDrill(opts, {
      api: () => session.api(),
      deps: { ...restoreDeps(session), reporter: quiet },
      now: () => session.now(),
      // One line each, whatever a database's name or a check's row holds: none can forge another's.
      progress: (id, text) => ui.info(terminalLine(`${id}: ${text}`)),
      command: (id, label, command) => ui.command(terminalLine(`${id}: ${label}: `), command, '    '),
      heartbeat: !session.ctx.stderrIsTTY,
      note: (text) => ui.info(text),
    });
  } catch (err) {
    // A signal (a CI job's time limit): after the clean-up, what finished is reported all the same (cli-contract 9.18).
    if (err instanceof DrillInterrupted && !opts.dryRun) await publish(opts, err.doc, session, true);
    throw err;
  }
  const d = doc.drill;
  const summary = opts.dryRun
    ? `Dry run: ${d.passed} database(s) have a backup to drill, ${d.failed} have none. Nothing was created.`
    : `${d.passed} passed, ${d.failed} failed${d.notRun ? `, ${d.notRun} not run` : ''}. The service was not told: API v1 has no operation to record a drill.`;
  await session.out.render(doc, [
    table(d.databases, session.settings.quiet ? quietColumns : drillColumns, 'No database to drill (an empty organization, or an empty shard).'),
    note(summary, d.failed ? 'yellow' : undefined),
  ]);
  // The result is printed before the report is written: a report that cannot be written (a full
  // disk, a planted link) is exit 2 naming it, and the drill's result is still there to read.
  await publish(opts, doc, session, false);
  if (d.failed || d.notRun) {
    const named = (result: string) => d.databases.filter((x) => x.result === result).map((x) => terminalLine(`${x.databaseId} (${x.failure?.check})`));
    const what = opts.dryRun ? 'would fail: no backup to drill for' : 'failed for';
    const failed = named('failed');
    const notRun = named('not_run');
    const said = [
      failed.length ? `The drill ${what} ${failed.length} of ${d.databases.length} database(s): ${failed.join(', ')}.` : '',
      notRun.length ? `${notRun.length} of ${d.databases.length} database(s) were not run: ${notRun.join(', ')}.` : '',
    ];
    throw new CliError('drill_failed', said.filter(Boolean).join(' '));
  }
}

/**
 * The report and the metrics, each given its chance: a report that cannot be written is thrown after
 * the metrics were published. After a signal, what was written is said and nothing is thrown: the
 * interruption's exit code stands.
 */
async function publish(opts: DrillCommandOptions, doc: DrillDocument, session: Session, interrupted: boolean): Promise<void> {
  const { ui } = session;
  const files = new UserFiles(session.secrets);
  let unwritten: unknown;
  const written: string[] = [];
  if (opts.reportDir) {
    try {
      await writeReport(opts.reportDir, doc, files);
      written.push(`Report${interrupted ? ' of the interrupted drill' : ''}: ${opts.reportDir}/drill.md, drill.json, junit.xml and receipts/`);
    } catch (err) {
      unwritten = err;
    }
  }
  let metricsWritten = false;
  let unpublished: unknown;
  try {
    metricsWritten = await publishMetrics(opts, doc, session, files, interrupted);
  } catch (err) {
    unpublished = err;
  }
  if (metricsWritten) written.push(`${written.length ? 'metrics' : 'Metrics'}: ${opts.metricsFile}`);
  // A note for a person, as the summary is: --json and --jq keep stderr for errors.
  if (written.length && (!session.settings.json || interrupted)) ui.info(`${written.join('; ')}.`);
  if (unpublished && !interrupted) throw unpublished;
  if (!unwritten) return;
  if (!interrupted) throw unwritten;
  ui.warn(unwritten instanceof Error ? unwritten.message : String(unwritten));
}

/**
 * The results for monitoring (cli-contract 9.14), after the result is on stdout: the metrics file and
 * the Pushgateway each get their chance, and a failure of either is said after the other was tried.
 * A drill that failed still exits 13 (the first thing an operator must see); a failed push alone is
 * its own exit code, so a nightly job whose results never reached monitoring does not look green.
 * Says whether the metrics file was written.
 */
async function publishMetrics(opts: DrillCommandOptions, doc: DrillDocument, session: Session, files: UserFiles, interrupted: boolean): Promise<boolean> {
  if (opts.dryRun) return false;
  const errors: CliError[] = [];
  let fileWritten = false;
  if (opts.metricsFile) {
    const { writeMetricsFile } = await import('../../drill/metrics-file.js');
    await writeMetricsFile(opts.metricsFile, doc, files).then(
      () => (fileWritten = true),
      (err: CliError) => errors.push(err),
    );
  }
  if (opts.pushgateway) {
    const { pushDrillMetrics } = await import('../../drill/pushgateway.js');
    const { ctx, settings } = session;
    await pushDrillMetrics(opts.pushgateway, opts.shard, doc, {
      env: ctx.env,
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      sleep: ctx.sleep,
      random: ctx.random,
      // After a signal the run's own signal has fired: the push is bounded by the request timeout instead.
      signal: interrupted ? AbortSignal.timeout(settings.timeoutMs) : ctx.signal,
      onRetry: (m) => session.ui.info(`Pushgateway: ${m}`),
      log: settings.verbose ? (line) => session.ui.debug(line) : undefined,
    }).then(
      () => session.ui.info(`Metrics pushed to ${opts.pushgateway} (group shard=${opts.shard ? `${opts.shard.index}_of_${opts.shard.count}` : 'all'}).`),
      (err: CliError) => errors.push(err),
    );
  }
  if (!errors.length) return fileWritten;
  if (doc.drill.failed || interrupted) {
    for (const err of errors) session.ui.warn(err.message);
    return fileWritten;
  }
  for (const err of errors.slice(0, -1)) session.ui.warn(err.message);
  throw errors.at(-1);
}

import { writeReport } from '../../drill/report-files.js';
import type { DrillDocument } from '../../drill/document.js';
import type { CliError } from '../../errors.js';
import { UserFiles } from '../../output/user-file.js';
import type { Session } from '../../session.js';
import type { DrillCommandOptions } from './drill-options.js';

/**
 * The report and the metrics, each given its chance: a report that cannot be written is thrown after
 * the metrics were published. After a signal, what was written is said and nothing is thrown: the
 * interruption's exit code stands.
 */
export async function publish(opts: DrillCommandOptions, doc: DrillDocument, session: Session, interrupted: boolean): Promise<void> {
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

import { resolve } from 'node:path';
import { CliError, UsageError } from '../../errors.js';
import { mergeReports } from '../../drill/merge.js';
import { writeReport } from '../../drill/report-files.js';
import { UserFiles } from '../../output/user-file.js';
import { note, table } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { requireId } from '../../core/args.js';
import type { Env } from '../shared/verb.js';
import { drillColumns } from './drill-table.js';

export interface MergeOptions {
  dirs: string[];
  reportDir: string;
}

/** `svc restore drill merge <dir>... --report <dir>`: every check local, exit 2 before anything is read. */
export function options(dirs: string[], flags: { report?: string }, _env: Env): MergeOptions {
  const given = (dirs as unknown as Array<string | string[]>).flat().map((d) => resolve(requireId(d, 'report directory')));
  if (!given.length)
    throw new UsageError("Name the shards' report directories to merge.", 'For example: svc restore drill merge report-1 report-2 --report report');
  if (flags.report === undefined) throw new UsageError('--report <dir> names where the merged report goes.');
  const reportDir = resolve(requireId(flags.report, '--report'));
  if (given.includes(reportDir)) throw new UsageError(`--report ${flags.report} is one of the shards' reports: write the merged report elsewhere.`);
  return { dirs: [...new Set(given)], reportDir };
}

/**
 * One report from many shards (cli-contract 9.15): drill.json, drill.md, junit.xml and receipts/ as one
 * run would write them; what is missing or reported twice is said on stderr and in the report. Exit 13
 * when a database failed or a shard is missing.
 */
export async function run(opts: MergeOptions, session: Session): Promise<void> {
  const doc = await mergeReports(opts.dirs);
  const { merge, passed, failed, databases } = doc.drill;
  const notRun = doc.drill.notRun ?? 0;
  const { ui } = session;
  ui.info(`Merged ${merge.shards.length} shard report(s) (${merge.shards.join(', ')}), run from ${merge.span?.from} to ${merge.span?.to}.`);
  for (const dir of merge.missingReports) ui.warn(`${dir} holds no drill.json: that shard's report is missing.`);
  if (merge.missingShards.length)
    ui.warn(`Missing shard(s): ${merge.missingShards.join(', ')}: their databases were not drilled, or their reports were not given.`);
  if (merge.duplicates.length) ui.warn(`Reported by more than one shard (the later report is kept): ${merge.duplicates.join(', ')}.`);
  await writeReport(opts.reportDir, doc, new UserFiles(session.secrets));
  await session.out.render(doc, [
    table(databases, drillColumns, 'No database in these reports.'),
    note(
      `${passed} passed, ${failed} failed${notRun ? `, ${notRun} not run` : ''}, across ${merge.shards.length} shard(s).`,
      failed || notRun || merge.missingShards.length ? 'yellow' : undefined,
    ),
    note(`Report: ${opts.reportDir}/drill.md, drill.json, junit.xml and receipts/.`),
  ]);
  const missing = [...merge.missingShards, ...merge.missingReports];
  if (failed || notRun || missing.length) {
    const ids = (result: string) =>
      databases
        .filter((d) => d.result === result)
        .map((d) => d.databaseId)
        .join(', ');
    const why = [
      failed ? `${failed} of ${databases.length} database(s) failed (${ids('failed')})` : '',
      // A database a shard did not get to (a signal, --deadline) is not proven: the merge does not pass.
      notRun ? `${notRun} of ${databases.length} database(s) not run (${ids('not_run')})` : '',
      missing.length ? `report(s) missing: ${missing.join(', ')}` : '',
    ].filter(Boolean);
    throw new CliError('drill_failed', `The organization's drill did not pass: ${why.join('; ')}.`);
  }
}

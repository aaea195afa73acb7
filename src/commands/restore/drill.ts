import { restoreDeps } from '../../core/restore/engine-options.js';
import type { DrillDocument } from '../../drill/document.js';
import { runDrill } from '../../drill/run-drill.js';
import { DrillInterrupted } from '../../drill/run-document.js';
import { CliError } from '../../errors.js';
import { terminalLine } from '../../output/terminal-text.js';
import { note, table } from '../../output/writer.js';
import type { Session } from '../../session.js';
import { Reporter } from '../../ui/reporter.js';
import type { DrillCommandOptions } from './drill-options.js';
import { publish } from './drill-publish.js';
import { drillColumns, quietColumns } from './drill-table.js';

export { options } from './drill-options.js';

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

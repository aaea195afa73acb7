import type { Prompter } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors.js';
import { replacesLine, type InPlaceNames } from '../in-place/in-place.js';
import type { RestorePlan } from '../plan.js';
import { redactedDsn } from './target.js';

/** Refused before anything runs: an in-place restore nobody can confirm. */
export function assertConfirmable(plan: RestorePlan): void {
  if (plan.mode === 'in_place' && !plan.confirm && !plan.interactive) {
    throw new UsageError(
      `An in-place restore replaces the contents of ${redactedDsn(plan.target)} and needs --confirm in a non-interactive run.`,
      'Add --confirm, or run it in a terminal to type the database name.',
    );
  }
}

/**
 * The in-place confirmation (cli-contract 7.6, 7.17), asked after every service check so that what
 * it names is what will happen: in one line the database replaced and the name its current state is
 * kept under, then the backup (id, database, completion time, size). Ctrl-C at the prompt is an
 * interrupt (130), and SIGTERM/SIGHUP end it too (7.9).
 */
export async function confirmInPlace(
  plan: RestorePlan,
  names: InPlaceNames,
  backup: string | undefined,
  prompter: Prompter,
  signal: AbortSignal,
): Promise<void> {
  const { target } = plan;
  const answer = await prompter.text(
    [replacesLine(plan, names), ...(backup ? [`  from backup ${backup}`] : []), `Type the database name "${target.database}" to confirm`].join('\n'),
    (value) => (value === target.database ? undefined : `Type exactly: ${target.database}`),
    signal,
  );
  if (answer === undefined) throw new InterruptedError('In-place restore not confirmed; nothing was changed.');
  if (answer !== target.database) throw new UsageError('In-place restore not confirmed; nothing was changed.');
}

import type { Command } from 'commander';
import { examples, verb, type CommandHost } from '../shared/verb.js';

/** Registers the recovery verbs on their group command (program.ts creates it). */
export function registerRecovery(recovery: Command, host: CommandHost): void {
  recovery
    .command('summary')
    .description("Show a database's latest recovery window decision (getRecoverySummary)")
    .argument('<databaseId>', 'database id')
    .addHelpText('after', examples('svc recovery summary db_123'))
    .action(verb(host, () => import('./summary.js')));
  recovery
    .command('candidate')
    .description('Find the closest restore-ready candidate before an incident (getRecoveryCandidate)')
    .argument('<databaseId>', 'database id')
    .requiredOption(
      '--incident-time <iso8601>',
      'when the incident happened, e.g. 2026-11-20T14:30:00Z or "2026-11-20 15:30" (no zone: read in this machine\'s, and said)',
    )
    .addHelpText('after', examples('svc recovery candidate db_123 --incident-time 2026-11-20T14:30:00Z'))
    .action(verb(host, () => import('./candidate.js')));
  recovery
    .command('proof')
    .description('Show the proof behind a recovery window (getRecoveryWindowProof)')
    .argument('<windowId>', 'recovery window id')
    .addHelpText('after', examples('svc recovery proof rw_123'))
    .action(verb(host, () => import('./proof.js')));
}

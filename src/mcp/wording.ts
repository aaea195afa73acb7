import { COMPLETED_IS_NOT_PROOF } from '../core/proof.js';

/** api-v1.md 4.3 rule 4: no tool, description or result claims point-in-time recovery. */
export const NOT_PITR = "Nothing here is point-in-time recovery: a restore brings back a backup's data as of its dump, never a chosen moment between backups.";

/** What every evidence, backup, restore and recovery tool's description ends with (rules 4 and 5). */
export const PROOF_CAVEAT = `${COMPLETED_IS_NOT_PROOF} ${NOT_PITR}`;

/** The server's instructions: what it is (rule 1), what it never does (rules 2 to 5). */
export const INSTRUCTIONS = [
  "svc's local MCP server: a bridge, run by the svc command-line client on this machine, to the Backup Protection Service REST API v1. The service itself has no MCP transport; every tool here calls its REST routes with the user's own svc login.",
  'Tools read protected databases, destinations, backup jobs, evidence, restore jobs and recovery windows; trigger_backup starts an ad-hoc backup where the token allows it; plan_restore runs the service-checked dry run of a restore and returns the exact `svc restore create` command for a person to run.',
  "No tool restores, runs a restore drill or changes a database: a restore and a drill are a person's act. Tools the service's catalog marks advisory or without a live route are never offered.",
  'A tool with a human gate asks the person through elicitation first; where that is not possible it returns a confirmation challenge and does nothing: show it to a person.',
  COMPLETED_IS_NOT_PROOF,
  'Before saying that a database is recoverable, check the restore and evidence proof (get_evidence proofSemantics, get_restore proof, get_recovery_window_proof).',
  NOT_PITR,
].join('\n');

/** Light on purpose: `svc --help` shows these without loading the sandbox itself. */

/** Said in the help text, the banner and the --json document: the sandbox must never pass for the service. */
export const SANDBOX_NOTICE =
  'A local stand-in for the Backup Protection Service API v1, for development and CI only. ' +
  'It is not the service: fixture data held in memory, no database is backed up or restored by it, and nothing survives a restart.';

export const DEFAULT_SANDBOX_PORT = 4010;

/**
 * What the reference and the man page say besides the command tree, from the tables svc itself
 * runs on (exit codes, error codes, environment) and the few facts no table holds (files, see also).
 */
import { ENVIRONMENT } from '../../src/environment.js';
import { ERROR_CODES } from '../../src/errors.js';
import { EXIT_CODES } from '../../src/exit-codes.js';
import type { Item } from './reference.js';

export const exitStatus: Item[] = EXIT_CODES.map((e) => ({ term: String(e.code), description: e.detail }));

/** svc's own error codes (the `code` of the --json error envelope) with their exit codes; a service error carries the service's code. */
export const errorCodes: Array<Item & { exit: number }> = Object.entries(ERROR_CODES).map(([code, e]) => ({
  term: code,
  exit: e.exit,
  description: e.hint ?? '',
}));

export const environment: Item[] = ENVIRONMENT.map((e) => ({ term: e.names.join(', '), description: e.meaning }));

export const files: Item[] = [
  {
    term: '$XDG_CONFIG_HOME/svc/config.json',
    description: 'the profiles and their base URLs (default ~/.config/svc/config.json); written atomically (0600) under a lock file',
  },
  {
    term: '$XDG_CONFIG_HOME/svc/credentials.json',
    description: 'the tokens of profiles where no OS keychain is available: mode 0600 in a 0700 directory',
  },
  { term: '$XDG_CONFIG_HOME/svc/.lock', description: 'held while either file is written, so concurrent logins lose nothing' },
  {
    term: 'the OS keychain',
    description: 'where svc auth login stores a token: service "svc", account the base URL (<profile>@<base URL> for a named profile)',
  },
];

export const description = [
  'svc lists what the service protects, triggers backups, reads their evidence and recovery windows, and restores a backup into a PostgreSQL database on this machine: it downloads the artifact, verifies its size and SHA-256, runs pg_restore, ANALYZE and an object check, and writes a receipt. svc restore drill restores backups into throwaway scratch databases and checks them: the proof that backups restore, which a completed backup is not.',
  'Every command and group prints its help with examples: svc <command> --help. Bare svc and svc <group> print their help too. Global options go before or after the command.',
  'stdout carries data only (tables, key/value blocks, or one JSON document with --json); progress, hints, warnings and errors go to stderr.',
];

export const seeAlso = ['pg_restore(1)', 'psql(1)', 'jq(1)'];

export const seeAlsoText =
  'The manual: README.md in the installed package (its directory is $(npm root -g)/svc) and the guides in docs/ of the source repository: commands, restore and drills, output and scripting, security, performance, development.';

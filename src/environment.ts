/**
 * The environment variables svc reads: the one list the root help's "Environment:" line, the
 * reference in docs/commands.md and the man page's ENVIRONMENT section are generated from.
 * `help: false` keeps a row out of the help's one-line list (it stays in the reference).
 */
export const ENVIRONMENT: ReadonlyArray<{ names: readonly string[]; meaning: string; help?: false }> = [
  { names: ['SVC_API_KEY'], meaning: 'the API token; wins over the keychain and the credentials file (the way to authenticate in CI)' },
  { names: ['SVC_BASE_URL'], meaning: 'the service root, e.g. https://backup.example.com (as --base-url)' },
  { names: ['SVC_PROFILE'], meaning: 'the saved login to use (as --profile)' },
  { names: ['SVC_TIMEOUT'], meaning: 'per-request timeout in seconds (as --timeout)' },
  { names: ['SVC_DEBUG'], meaning: '1: the same as --verbose' },
  { names: ['SVC_TARGET_DSN'], meaning: 'the restore target URI (as --target): the quiet way to pass its password' },
  { names: ['SVC_PG_BINDIR'], meaning: "the PostgreSQL server binaries (initdb, pg_ctl, postgres) for a drill's scratch cluster (as --pg-bindir)" },
  { names: ['SVC_KEYCHAIN'], meaning: 'keyring, keytar or file: force one token store' },
  { names: ['NO_COLOR'], meaning: 'no colour' },
  { names: ['XDG_CONFIG_HOME'], meaning: 'where svc/config.json and the fallback svc/credentials.json live (default ~/.config; a relative path is ignored)' },
  { names: ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'], meaning: 'proxies for API calls and the artifact download, as curl reads them (lower case too)' },
  { names: ['NODE_EXTRA_CA_CERTS'], meaning: 'a PEM file of extra CA certificates (a private CA), read by Node at start' },
  {
    names: ['PGPASSWORD', 'PGPASSFILE', 'PGHOST', 'PGPORT', 'PGUSER', 'PGSSLMODE'],
    meaning: 'honoured for the restore target (and a scratch DSN) where the URI leaves them out, as libpq does; PGSERVICE and PGHOSTADDR are ignored',
    help: false,
  },
  { names: ['TMPDIR'], meaning: 'where the temporary PGPASSFILE goes, and the default --work-dir', help: false },
  { names: ['CI'], meaning: 'set: no spinners or progress bars, plain progress lines instead', help: false },
];

/** "SVC_API_KEY, SVC_BASE_URL, ...": the names the root help lists. */
export function environmentSummary(): string {
  return ENVIRONMENT.filter((e) => e.help !== false)
    .flatMap((e) => e.names)
    .join(', ');
}

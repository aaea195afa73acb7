/**
 * The exit codes of cli-contract.md section 5: the one place that knows them. `svc --help` is
 * generated from their short `meaning`; docs/commands.md and the man page from their `detail`.
 */
export const EXIT_CODES = [
  { name: 'ok', code: 0, meaning: 'ok', detail: 'success' },
  {
    name: 'unexpected',
    code: 1,
    meaning: 'unexpected',
    detail:
      'unexpected error, including a response that does not match the API contract, a 2xx body over 16 MiB, --all or --paginate stopped by the page bounds, a held list over 256 MiB, and a --jq filter out of memory',
  },
  {
    name: 'usage',
    code: 2,
    meaning: 'usage',
    detail:
      'usage or invalid input: bad flags or arguments, 400 from the service, --in-place without confirmation in a non-interactive run, a non-empty target for a new-database restore, a target URI parameter svc cannot pass on, not enough disk space, an unusable TMPDIR, an unreadable or malformed --check file',
  },
  { name: 'auth', code: 3, meaning: 'auth', detail: 'authentication: no token configured, a token with control characters (nothing sent), or 401' },
  { name: 'permission', code: 4, meaning: 'permission', detail: 'permission: 403 (the message names the required scope)' },
  {
    name: 'notFound',
    code: 5,
    meaning: 'not found',
    detail: 'not found: 404 (the message names what was not found and how to list it), and tools get of an unknown name',
  },
  { name: 'conflict', code: 6, meaning: 'conflict', detail: 'conflict: 409 (an idempotency key in flight, or reused with another body)' },
  {
    name: 'precondition',
    code: 7,
    meaning: 'precondition',
    detail:
      'precondition failed: 412, a backup that is not completed with an artifact, no eligible backup for --latest or --before, a recovery window without a retained baseline backup',
  },
  { name: 'rateLimited', code: 8, meaning: 'rate limited', detail: 'rate limited: 429 after the retries, or a Retry-After over 120 s' },
  {
    name: 'unavailable',
    code: 9,
    meaning: 'unavailable',
    detail: 'service unavailable: 5xx after the retries, network failure, timeout, proxy or TLS failure, and --wait or --watch giving up at --wait-timeout',
  },
  {
    name: 'integrity',
    code: 10,
    meaning: 'artifact integrity',
    detail:
      'artifact integrity: size or SHA-256 mismatch, not a pg_dump archive, a download URL that expired, is not http(s) or failed for good, an artifact larger than the disk',
  },
  {
    name: 'localTool',
    code: 11,
    meaning: 'local restore tool',
    detail:
      "local restore tool failed or missing (pg_restore, psql, a drill's server binaries), target or scratch server unreachable, an archive no local pg_restore can read, an extension, locale or tablespace the archive needs missing on the target, a plain-SQL or directory-format artifact, an object of the archive missing after the restore",
  },
  { name: 'jobFailed', code: 12, meaning: 'job failed', detail: 'a waited-for job ended failed_terminal, cancelled or timed_out (--wait, --watch)' },
  {
    name: 'drillFailed',
    code: 13,
    meaning: 'restore drill failed',
    detail:
      "a restore drill failed: at least one database's drill did not pass (with --dry-run: at least one database has no backup to drill); the report names each failure",
  },
  { name: 'hangup', code: 129, meaning: 'SIGHUP', detail: 'SIGHUP (a closed terminal, an SSH drop): the same clean-up as SIGINT' },
  {
    name: 'interrupted',
    code: 130,
    meaning: 'interrupted',
    detail:
      'interrupted (SIGINT, Ctrl-C, also at a prompt): partial downloads, the temporary PGPASSFILE and a partly restored new database removed, child processes ended',
  },
  { name: 'terminated', code: 143, meaning: 'SIGTERM', detail: 'SIGTERM (a cancelled CI job, timeout): the same clean-up as SIGINT' },
] as const;

type ExitCodeEntry = (typeof EXIT_CODES)[number];
export type ExitCodeName = ExitCodeEntry['name'];
export type ExitCodeValue = ExitCodeEntry['code'];

export const ExitCode = Object.fromEntries(EXIT_CODES.map((e) => [e.name, e.code])) as {
  [E in ExitCodeEntry as E['name']]: E['code'];
};

/** "0 ok, 1 unexpected, ...": the exit-code lines of `svc --help`. */
export function exitCodeSummary(): string {
  return EXIT_CODES.map((e) => `${e.code} ${e.meaning}`).join(', ');
}

/** Exit code for an HTTP error status that survived retries. */
export function exitCodeForStatus(status: number): ExitCodeValue {
  if (status === 400 || status === 422) return ExitCode.usage;
  if (status === 401) return ExitCode.auth;
  if (status === 403) return ExitCode.permission;
  if (status === 404) return ExitCode.notFound;
  if (status === 409) return ExitCode.conflict;
  if (status === 412) return ExitCode.precondition;
  if (status === 429) return ExitCode.rateLimited;
  if (status >= 500) return ExitCode.unavailable;
  return ExitCode.unexpected;
}

const SIGNAL_EXIT: Record<string, ExitCodeValue> = {
  SIGHUP: ExitCode.hangup,
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
};

/** 128 + the signal's number (cli-contract 5); SIGINT where the signal is not known. */
export function exitCodeForSignal(signal: unknown): ExitCodeValue {
  return (typeof signal === 'string' && SIGNAL_EXIT[signal]) || ExitCode.interrupted;
}

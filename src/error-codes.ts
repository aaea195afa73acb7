import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/**
 * Every machine-readable error code svc itself reports, with its exit code and default hint. The
 * codes appear in the --json error envelope (cli-contract 4) and scripts match on them: add here,
 * never as a string literal elsewhere. A service error carries the service's own code instead.
 */
export const ERROR_CODES = {
  unexpected: {
    exit: ExitCode.unexpected,
    hint: 'This is a bug in svc; please report it with the command you ran (run with --verbose for the HTTP exchanges).',
  },
  usage: { exit: ExitCode.usage, hint: undefined },
  jq_failed: {
    exit: ExitCode.usage,
    hint: 'Only the --jq expression failed, on the JSON document --json prints; nothing was changed at the service.',
  },
  jq_out_of_memory: {
    exit: ExitCode.unexpected,
    hint: 'Narrow the expression (select or slice before building large values), or print --json and pipe it into jq, which runs outside svc.',
  },
  unauthenticated: {
    exit: ExitCode.auth,
    hint: 'Run `svc auth login` (it asks for a token; tokens are made in the dashboard under Settings, API tokens), or set SVC_API_KEY in the environment.',
  },
  invalid_token: {
    exit: ExitCode.auth,
    hint: 'A token holds no spaces or control characters: set SVC_API_KEY again, or run `svc auth login` to replace the stored one.',
  },
  connection_failed: { exit: ExitCode.unavailable, hint: 'Check the base URL and your network, then try again.' },
  proxy_failed: {
    exit: ExitCode.unavailable,
    hint: 'Check HTTPS_PROXY / HTTP_PROXY, or name the host in NO_PROXY to bypass the proxy.',
  },
  tls_failed: {
    exit: ExitCode.unavailable,
    hint: 'If the service uses a private certificate authority, set NODE_EXTRA_CA_CERTS to its PEM file.',
  },
  timeout: { exit: ExitCode.unavailable, hint: 'Check the service status, or raise --timeout / SVC_TIMEOUT.' },
  wait_timeout: {
    exit: ExitCode.unavailable,
    hint: 'The job goes on at the service; check it later with the get command, or raise --wait-timeout.',
  },
  redirect_refused: { exit: ExitCode.unexpected, hint: 'Check --base-url: it should point at the service itself.' },
  contract_mismatch: {
    exit: ExitCode.unexpected,
    hint: 'The service answered outside the API v1 contract. Report it with the request id; `svc --version` may be outdated.',
  },
  response_too_large: {
    exit: ExitCode.unexpected,
    hint: 'The service sent more than svc reads for one response; report it with the request id.',
  },
  paginate_unmergeable: {
    exit: ExitCode.unexpected,
    hint: 'Drop --paginate and follow nextCursor yourself (add ?cursor=... to the path).',
  },
  paging_runaway: {
    exit: ExitCode.unexpected,
    hint: 'The service kept handing out next cursors; report it with the request id, or page by hand with --cursor.',
  },
  paging_too_large: {
    exit: ExitCode.unexpected,
    hint: 'Add --json (without --jq): the merged list is then written as the pages arrive, never held. Or page through it with --limit and --cursor.',
  },
  bad_config: { exit: ExitCode.unexpected, hint: 'Fix or delete the file, then run the command again.' },
  tool_not_found: { exit: ExitCode.notFound, hint: 'Run `svc tools list` to see the names.' },
  port_in_use: { exit: ExitCode.usage, hint: 'Pass --port 0 for a free port, or stop whatever listens there.' },
  sandbox_data: {
    exit: ExitCode.usage,
    hint: 'Pass --data DIR with the layout of fixtures/ (api/, sandbox/, artifacts/).',
  },
  temp_dir_unusable: {
    exit: ExitCode.usage,
    hint: 'Set TMPDIR to a writable directory with free space, then run the restore again.',
  },
  insufficient_space: { exit: ExitCode.usage, hint: 'Free some space or pass --work-dir on a larger disk.' },
  file_is_link: {
    exit: ExitCode.usage,
    hint: 'Remove the link (or name another path), then run the command again: svc writes its files only as regular files.',
  },
  file_not_written: {
    exit: ExitCode.usage,
    hint: 'The result above stands; free some space or fix the permissions (or name another path), then run the command again to get the file.',
  },
  target_exists: {
    exit: ExitCode.precondition,
    hint: 'Name a new database in --target, or replace this one with --in-place --confirm.',
  },
  target_unreachable: {
    exit: ExitCode.unavailable,
    hint: 'Check host and port, and that the server runs and accepts connections from here; then run the command again.',
  },
  missing_scope: { exit: ExitCode.permission, hint: 'Ask an organization admin for a token with the required scope.' },
  no_eligible_backup: {
    exit: ExitCode.precondition,
    hint: 'List the backups with `svc backups list <databaseId>`, or name one with --backup.',
  },
  backup_not_restorable: {
    exit: ExitCode.precondition,
    hint: 'Only a completed backup with an artifact can be restored: check it with `svc backups get`.',
  },
  in_place_not_permitted: {
    exit: ExitCode.precondition,
    hint: 'Run the in-place restore as a role that may create databases and owns the target, or restore into a new database.',
  },
  target_in_use: {
    exit: ExitCode.precondition,
    hint: 'Stop the clients connected to it (the application, psql sessions), or pass --terminate-connections to have svc end them at the swap.',
  },
  artifact_exceeds_disk: {
    exit: ExitCode.integrity,
    hint: 'Free some space or pass --work-dir on a larger disk, then run the restore again (the restore job the service created stays queued).',
  },
  artifact_integrity: {
    exit: ExitCode.integrity,
    hint: 'Run the restore again; if it fails the same way, the stored backup may be damaged: contact support.',
  },
  artifact_expired: {
    exit: ExitCode.integrity,
    hint: 'Run the restore again to get fresh download coordinates (presigned URLs are short-lived).',
  },
  artifact_download_failed: {
    exit: ExitCode.integrity,
    hint: 'Check the network (and HTTPS_PROXY / NO_PROXY), then run the restore again.',
  },
  local_tool_failed: { exit: ExitCode.localTool, hint: undefined },
  metrics_push_failed: {
    exit: ExitCode.unavailable,
    hint: 'Check the --pushgateway URL and that the Pushgateway runs (and HTTPS_PROXY / NO_PROXY); the drill itself ran, and its report and exit code stand.',
  },
  drill_failed: {
    exit: ExitCode.drillFailed,
    hint: 'The report (stdout, or drill.md with --report) names each failed database, its failed check and why.',
  },
  no_data: { exit: ExitCode.drillFailed, hint: undefined },
  rows_mismatch: { exit: ExitCode.drillFailed, hint: undefined },
  /** no_drift: the restored data shrank against --baseline (cli-contract 9.17). */
  data_drift: { exit: ExitCode.drillFailed, hint: undefined },
  /** --deadline passed before the database was started (cli-contract 9.18). */
  deadline_reached: { exit: ExitCode.drillFailed, hint: undefined },
  max_age_exceeded: { exit: ExitCode.drillFailed, hint: undefined },
  sql_check_failed: { exit: ExitCode.drillFailed, hint: undefined },
  /** --strict: an unprivileged restore left objects out (cli-contract 7.14). */
  not_restored: { exit: ExitCode.drillFailed, hint: undefined },
  job_failed: { exit: ExitCode.jobFailed, hint: undefined },
  interrupted: { exit: ExitCode.interrupted, hint: undefined },
} as const satisfies Record<string, { exit: ExitCodeValue; hint: string | undefined }>;

export type ErrorCode = keyof typeof ERROR_CODES;

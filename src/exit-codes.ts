/** The exit codes of cli-contract.md section 5: the one place that knows them. */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  permission: 4,
  notFound: 5,
  conflict: 6,
  precondition: 7,
  rateLimited: 8,
  unavailable: 9,
  integrity: 10,
  localTool: 11,
  jobFailed: 12,
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

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

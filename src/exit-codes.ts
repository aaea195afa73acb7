/** The exit codes of cli-contract.md section 5: the one place that knows them. `svc --help` is generated from EXIT_CODES. */
export const EXIT_CODES = [
  { name: 'ok', code: 0, meaning: 'ok' },
  { name: 'unexpected', code: 1, meaning: 'unexpected' },
  { name: 'usage', code: 2, meaning: 'usage' },
  { name: 'auth', code: 3, meaning: 'auth' },
  { name: 'permission', code: 4, meaning: 'permission' },
  { name: 'notFound', code: 5, meaning: 'not found' },
  { name: 'conflict', code: 6, meaning: 'conflict' },
  { name: 'precondition', code: 7, meaning: 'precondition' },
  { name: 'rateLimited', code: 8, meaning: 'rate limited' },
  { name: 'unavailable', code: 9, meaning: 'unavailable' },
  { name: 'integrity', code: 10, meaning: 'artifact integrity' },
  { name: 'localTool', code: 11, meaning: 'local restore tool' },
  { name: 'jobFailed', code: 12, meaning: 'job failed' },
  { name: 'drillFailed', code: 13, meaning: 'restore drill failed' },
  { name: 'hangup', code: 129, meaning: 'SIGHUP' },
  { name: 'interrupted', code: 130, meaning: 'interrupted' },
  { name: 'terminated', code: 143, meaning: 'SIGTERM' },
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

import { ExitCode, exitCodeForStatus, type ExitCodeValue } from './exit-codes.js';

export interface ErrorDetails {
  /** Stable machine code, e.g. `forbidden`, `usage`, `contract_mismatch`. */
  code: string;
  /** What to do next, shown on its own line. */
  hint?: string;
  requestId?: string;
  status?: number;
  requiredScope?: string;
  nextAction?: string;
}

/**
 * Every failure the CLI reports is a CliError: deep code throws, cli.ts prints and exits.
 * Messages must never hold a secret: callers build them from redacted parts only.
 */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly details: ErrorDetails;

  constructor(exitCode: ExitCodeValue, message: string, details: ErrorDetails) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.details = details;
  }
}

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(ExitCode.usage, message, { code: 'usage', hint });
  }
}

export class AuthRequiredError extends CliError {
  constructor(message = 'No API token is configured.') {
    super(ExitCode.auth, message, {
      code: 'unauthenticated',
      hint: 'Run `svc auth login`, or set SVC_API_KEY in the environment.',
    });
  }
}

/** The service answered with an error status (after retries, where retryable). */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    message: string,
    details: Omit<ErrorDetails, 'status'>,
  ) {
    super(exitCodeForStatus(status), message, { ...details, status });
  }
}

/** Network failure or timeout that outlived its retries. */
export class ConnectionError extends CliError {
  constructor(message: string, hint?: string) {
    super(ExitCode.unavailable, message, { code: 'connection_failed', hint });
  }
}

export class TimeoutError extends CliError {
  constructor(message: string) {
    super(ExitCode.unavailable, message, {
      code: 'timeout',
      hint: 'Check the service status, or raise --timeout / SVC_TIMEOUT.',
    });
  }
}

/** A response that does not match api-v1.md: names the field and the request id. */
export class ContractError extends CliError {
  constructor(message: string, requestId?: string) {
    super(ExitCode.unexpected, message, {
      code: 'contract_mismatch',
      requestId,
      hint: 'The service answered outside the API v1 contract. Report it with the request id; `svc --version` may be outdated.',
    });
  }
}

export class IntegrityError extends CliError {
  constructor(message: string, hint?: string) {
    super(ExitCode.integrity, message, { code: 'artifact_integrity', hint });
  }
}

export class LocalToolError extends CliError {
  constructor(message: string, hint?: string) {
    super(ExitCode.localTool, message, { code: 'local_tool_failed', hint });
  }
}

export class JobFailedError extends CliError {
  constructor(message: string, hint?: string) {
    super(ExitCode.jobFailed, message, { code: 'job_failed', hint });
  }
}

export class InterruptedError extends CliError {
  constructor(message = 'Interrupted.', hint?: string) {
    super(ExitCode.interrupted, message, { code: 'interrupted', hint });
  }
}

export function isCliError(err: unknown): err is CliError {
  return err instanceof CliError;
}

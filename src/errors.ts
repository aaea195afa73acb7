import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { ExitCode, exitCodeForStatus, type ExitCodeValue } from './exit-codes.js';

export { ERROR_CODES, type ErrorCode } from './error-codes.js';

export interface ErrorDetails {
  /** Stable machine code: one of ERROR_CODES, or the service's own code for an API error. */
  code: string;
  /** What to do next, shown on its own line. */
  hint?: string;
  requestId?: string;
  status?: number;
  requiredScope?: string;
  nextAction?: string;
  /** A 429's or 503's Retry-After, in whole seconds: when the caller may try again. */
  retryAfterSeconds?: number;
  /** Already said on stderr in plain words (a server stopped by Ctrl-C): only the exit code is left to give. */
  said?: boolean;
}

export type ErrorExtra = Omit<ErrorDetails, 'code'>;

/**
 * Every failure the CLI reports is a CliError: deep code throws, cli.ts prints and exits.
 * Messages must never hold a secret: callers build them from redacted parts only (and cli.ts
 * scrubs every line it prints as a second line of defence).
 */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, extra: ErrorExtra = {}) {
    super(message);
    this.name = new.target.name;
    this.exitCode = ERROR_CODES[code].exit;
    this.details = { code, ...extra, hint: extra.hint ?? ERROR_CODES[code].hint };
  }

  /** The same failure with its exit code replaced (a service status, a signal). */
  protected withExit(exitCode: ExitCodeValue): this {
    (this as { exitCode: ExitCodeValue }).exitCode = exitCode;
    return this;
  }
}

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super('usage', message, { hint });
  }
}

export class AuthRequiredError extends CliError {
  constructor(message = 'No API token is configured.') {
    super('unauthenticated', message);
  }
}

/** The service answered with an error status (after retries, where retryable): its own code, the status's exit code. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    serviceCode: string | undefined,
    message: string,
    extra: Omit<ErrorExtra, 'status'>,
  ) {
    super('unexpected', message, { ...extra, status, hint: extra.hint });
    this.details.code = serviceCode ?? `http_${status}`;
    this.details.hint = extra.hint;
    this.withExit(exitCodeForStatus(status));
  }
}

/** A response that does not match api-v1.md: names the field and the request id. */
export class ContractError extends CliError {
  constructor(message: string, requestId?: string) {
    super('contract_mismatch', message, { requestId });
  }
}

/** The artifact could not be fetched or verified (exit 10): integrity, expiry or a download that failed for good. */
export class IntegrityError extends CliError {
  constructor(message: string, hint?: string, code: 'artifact_integrity' | 'artifact_expired' | 'artifact_download_failed' = 'artifact_integrity') {
    super(code, message, { hint });
  }
}

export class LocalToolError extends CliError {
  constructor(message: string, hint?: string) {
    super('local_tool_failed', message, { hint });
  }
}

export class JobFailedError extends CliError {
  constructor(message: string, hint?: string) {
    super('job_failed', message, { hint });
  }
}

/** A signal ended the run: 130 for SIGINT, 129 for SIGHUP, 143 for SIGTERM (cli-contract 5); cli.ts sets which. */
export class InterruptedError extends CliError {
  constructor(message = 'Interrupted.', hint?: string) {
    super('interrupted', message, { hint });
  }

  forSignal(exitCode: ExitCodeValue): this {
    return this.withExit(exitCode);
  }

  /** The stop was said as an ordinary line, not an error (outside --json). */
  said(): this {
    this.details.said = true;
    return this;
  }
}

export function isCliError(err: unknown): err is CliError {
  return err instanceof CliError;
}

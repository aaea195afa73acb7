/**
 * The contract's timers, in one place (cli-contract 4: a heartbeat at least every 60 s; 9, step 4: a
 * SQL check runs under a 60 s statement timeout). Tests of the built CLI shorten them through two
 * test-only variables, read here and nowhere else, so that a heartbeat test takes a second rather
 * than a minute: SVC_TEST_HEARTBEAT_MS and SVC_TEST_CHECK_TIMEOUT_MS. SVC_TEST_READY_TIMEOUT_MS
 * lengthens the scratch server's start-up timeout instead, so that a test can tell a start that fails
 * at once from one that waited the timeout out. None is a secret nor part of the contract; anything
 * but a positive whole number of milliseconds leaves the contract's value.
 */
export const HEARTBEAT_MS = 60_000;
export const CHECK_TIMEOUT_MS = 60_000;
export const READY_TIMEOUT_MS = 60_000;

type TestTimer = 'SVC_TEST_HEARTBEAT_MS' | 'SVC_TEST_CHECK_TIMEOUT_MS' | 'SVC_TEST_READY_TIMEOUT_MS';

function testOverride(name: TestTimer): number | undefined {
  const raw = process.env[name];
  return raw !== undefined && /^[1-9]\d{0,6}$/.test(raw) ? Number(raw) : undefined;
}

/** How long a phase without a terminal may go without a line before it says it is still running. */
export const heartbeatMs = (): number => testOverride('SVC_TEST_HEARTBEAT_MS') ?? HEARTBEAT_MS;

/** The SQL checks' statement_timeout, as PostgreSQL reads it: `60s` unless a test shortened it. */
export function checkStatementTimeout(): string {
  const ms = testOverride('SVC_TEST_CHECK_TIMEOUT_MS');
  return ms === undefined ? `${CHECK_TIMEOUT_MS / 1000}s` : `${ms}ms`;
}

/** How long a scratch server may take to say it is ready before the drill gives up on it. */
export const readyTimeoutMs = (): number => testOverride('SVC_TEST_READY_TIMEOUT_MS') ?? READY_TIMEOUT_MS;

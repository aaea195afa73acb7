/**
 * No line wider than the terminal (cli-contract 4, v3), as a user sees it: the built CLI under a
 * real pseudo-terminal 40, 60, 80 and 120 columns wide, its screen played into a terminal emulator
 * of that width, every line (spinner frames included) checked. Every command that prints: help of
 * the root, each group and each verb, every verb against the sandbox, errors, the sandbox's banner.
 * `svc completion <shell>` prints a script to be sourced, not a screen: it is exempt. Restore and
 * drill screens, which need PostgreSQL, are in test/e2e/screens-fit-restore.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { cleanEnv, ensureBuilt } from '../support/built-cli.js';
import { expectFits, type ScreenCase } from '../support/fit-screens.js';
import { disposePtys, ptySkipReason } from '../support/pty.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const skip = ptySkipReason();

/** Every command line of help: bare svc and bare groups print it too (cli-contract 4). */
function helpCommandLines(): string[][] {
  const program = buildProgram({ run: async () => {} });
  const lines: string[][] = [[], ['--help']];
  for (const command of program.commands) {
    if ((command as unknown as { _hidden?: boolean })._hidden) continue;
    const name = command.name();
    lines.push([name, '--help']);
    if (command.commands.length) lines.push([name]);
    for (const verb of command.commands) lines.push([name, verb.name(), '--help']);
  }
  return lines;
}

describe.skipIf(!!skip)('every screen fits the terminal', () => {
  let sandbox: TestSandbox;
  beforeAll(async () => {
    await ensureBuilt();
    // The real clock: a backup triggered with --wait must move on while its spinner runs.
    sandbox = await startTestSandbox({ now: () => new Date(), recentTimestamps: true });
  }, 180_000);
  afterAll(async () => {
    await disposePtys();
    await sandbox?.stop();
  });

  const env = (token: string | null = 'full', extra: Record<string, string | undefined> = {}) =>
    cleanEnv({ SVC_BASE_URL: sandbox.baseUrl, SVC_API_KEY: token === null ? undefined : sandbox.token(token), ...extra });

  describe.concurrent('help', () => {
    it.each(helpCommandLines().map((args) => [args.join(' ') || '(bare)', args] as const))(
      'svc %s',
      async (_name, args) => {
        // Bare svc and bare groups: their exit code is another item of issue 18; here only their screen counts.
        await expectFits(args.join(' '), () => ({ args, env: env(null), shows: /Usage: svc/, exit: args.at(-1) === '--help' ? 0 : 'any' }));
      },
      120_000,
    );
  });

  const incident = () => new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

  const cases: Array<[string, () => ScreenCase]> = [
    ['profile', () => ({ args: ['profile'], env: env(), shows: /organization/ })],
    ['databases list', () => ({ args: ['databases', 'list'], env: env(), shows: /^db_orders +orders-prod/m })],
    ['databases list --all', () => ({ args: ['databases', 'list', '--all'], env: env(), shows: /^db_billing /m })],
    ['databases get', () => ({ args: ['databases', 'get', 'db_orders'], env: env(), shows: /db_orders/ })],
    ['destinations list', () => ({ args: ['destinations', 'list'], env: env(), shows: /^dst_eu_s3 /m })],
    ['destinations get', () => ({ args: ['destinations', 'get', 'dst_eu_s3'], env: env(), shows: /dst_eu_s3/ })],
    ['backups list', () => ({ args: ['backups', 'list', 'db_orders'], env: env(), shows: /^bj_0006 +failed_terminal/m })],
    [
      'backups get (completed)',
      () => ({ args: ['backups', 'get', 'bj_0007'], env: env(), shows: /431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55/ }),
    ],
    ['backups get (failed)', () => ({ args: ['backups', 'get', 'bj_0006'], env: env(), shows: /failed_terminal/ })],
    ['backups trigger', () => ({ args: ['backups', 'trigger', 'db_billing'], env: env(), shows: /bj_\d+/ })],
    ['backups trigger --wait', () => ({ args: ['backups', 'trigger', 'db_orders', '--wait'], env: env(), shows: /completed/ })],
    ['evidence list', () => ({ args: ['evidence', 'list'], env: env(), shows: /^bj_0007 /m })],
    ['evidence get', () => ({ args: ['evidence', 'get', 'bj_0007'], env: env(), shows: /431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55/ })],
    ['evidence get (not verified)', () => ({ args: ['evidence', 'get', 'bj_0005'], env: env(), shows: /bj_0005/ })],
    ['restore get', () => ({ args: ['restore', 'get', 'rj_0001'], env: env(), shows: /rj_0001/ })],
    [
      'recovery summary',
      () => ({ args: ['recovery', 'summary', 'db_orders'], env: env(), shows: /4d2f1c0b9a8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4/ }),
    ],
    ['recovery candidate', () => ({ args: ['recovery', 'candidate', 'db_orders', '--incident-time', incident()], env: env(), shows: /rw_0003/ })],
    [
      'recovery proof',
      () => ({ args: ['recovery', 'proof', 'rw_0003'], env: env(), shows: /431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55/ }),
    ],
    ['tools list', () => ({ args: ['tools', 'list'], env: env(), shows: /^svc\.destination\.preflight /m })],
    ['tools get', () => ({ args: ['tools', 'get', 'svc.evidence.export'], env: env(), shows: /svc\.evidence\.export/ })],
    ['api', () => ({ args: ['api', '/profile'], env: env(), shows: /"organizationId"/ })],
    ['api --paginate', () => ({ args: ['api', 'databases', '--paginate'], env: env(), shows: /"db_billing"/ })],
    ['auth status', () => ({ args: ['auth', 'status'], env: env(), shows: /SVC_API_KEY/ })],
    ['auth status --all', () => ({ args: ['auth', 'status', '--all'], env: env(), shows: /./ })],
    ['auth logout', () => ({ args: ['auth', 'logout'], env: env(), shows: /./ })],
    [
      'auth login (the hidden prompt)',
      () => ({
        args: ['auth', 'login'],
        env: env(null),
        shows: /Paste your API token/,
        answer: { when: /Paste your API token/, keys: `${sandbox.token('full')}\r` },
      }),
    ],
    ['--verbose', () => ({ args: ['databases', 'list', '--verbose'], env: env(), shows: /GET \/api\/v1\/databases/ })],
    ['sandbox', () => ({ args: ['sandbox', '--port', '0'], env: env(null), shows: /svc_sandbox_/, stopWhen: /Sandbox listening/ })],
    // Errors: parse errors, local checks, and the service's (404, 403 with its scope, 401).
    ['error: unknown command', () => ({ args: ['databses', 'list'], env: env(), exit: 2, shows: /error:/ })],
    ['error: missing argument', () => ({ args: ['databases', 'get'], env: env(), exit: 2, shows: /error:/ })],
    ['error: unknown option', () => ({ args: ['databases', 'list', '--limt', '5'], env: env(), exit: 2, shows: /error:/ })],
    ['error: invalid --limit', () => ({ args: ['databases', 'list', '--limit', '0'], env: env(), exit: 2, shows: /error:/ })],
    ['error: no base URL', () => ({ args: ['databases', 'list'], env: env('full', { SVC_BASE_URL: undefined }), exit: 2, shows: /error:/ })],
    ['error: 404', () => ({ args: ['databases', 'get', 'db_nope'], env: env(), exit: 5, shows: /request id/ })],
    ['error: 403', () => ({ args: ['evidence', 'list'], env: env('read-only'), exit: 4, shows: /required scope/ })],
    ['error: 401', () => ({ args: ['profile'], env: env('expired'), exit: 3, shows: /request id/ })],
  ];

  describe.concurrent('commands', () => {
    it.each(cases)(
      'svc %s',
      async (name, make) => {
        await expectFits(name, make);
      },
      120_000,
    );
  });

  it('piped, nothing is cut or wrapped: whole values, digests beside their keys, errors on their lines', async () => {
    const { execa } = await import('execa');
    const { BIN } = await import('../support/built-cli.js');
    const piped = (args: string[], token = 'full') => execa(process.execPath, [BIN, ...args], { env: env(token), extendEnv: false, reject: false });
    const [evidence, backup, denied] = await Promise.all([
      piped(['evidence', 'list']),
      piped(['backups', 'get', 'bj_0007']),
      piped(['evidence', 'list'], 'read-only'),
    ]);
    expect(evidence.exitCode).toBe(0);
    expect(evidence.stdout).toMatch(/^BACKUP JOB +SIZE +SHA-256 +RECORDED +INTEGRITY CHECK +AUDIT EVENTS$/m);
    expect(evidence.stdout).toMatch(/^bj_0007 +92\.9 KiB +431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55 /m);
    expect(backup.stdout).toMatch(/^ {2}sha-256: +431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55$/m);
    expect(denied.exitCode).toBe(4);
    expect(denied.stderr).toMatch(/^ {2}next action: Issue a token with evidence:read in Settings > API tokens\.$/m);
  });
});

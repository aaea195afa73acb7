/**
 * A terminal that reports 0 columns (`script` with no size, some CI terminals) is treated as 80
 * (issue 17, item 9): it once crashed svc with "invalid size error" or "Invalid array length".
 * Run as a user sees it: the built CLI under a real pseudo-terminal whose size is 0x0.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ensureBuilt } from '../support/built-cli.js';
import { disposePtys, PtySession, ptySkipReason } from '../support/pty.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const skip = ptySkipReason();

describe.skipIf(!!skip)('a terminal of 0 columns', () => {
  let sandbox: TestSandbox;
  beforeAll(async () => {
    await ensureBuilt();
    // The real clock: a backup triggered with --wait must move on while its spinner runs.
    sandbox = await startTestSandbox({ now: () => new Date() });
  }, 180_000);
  afterAll(() => sandbox?.stop());
  afterEach(() => disposePtys());

  const env = () => cleanEnv({ SVC_BASE_URL: sandbox.baseUrl, SVC_API_KEY: sandbox.token('full') });
  /**
   * The screen from the last finished spinner on (its frames depend on timing), without what
   * differs between two runs of the same command (times, job ids, ages).
   */
  const stable = (screen: string) =>
    screen
      .slice(Math.max(0, screen.lastIndexOf('✓')))
      .replace(/\(\d+\.\ds\)/g, '(Ns)')
      .replace(/bj_\d+/g, 'bj_N')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'T')
      .replace(/\d+[smhd] ago|just now/g, 'N ago');

  it.each([[['--help']], [['databases', 'list']], [['backups', 'get', 'bj_0007']], [['backups', 'trigger', 'db_orders', '--wait']]])(
    'svc %j: no crash, and the screen is the one an 80-column terminal shows',
    async (args) => {
      const zero = await (await PtySession.start(args, { env: env(), rows: 0, cols: 0 })).exited;
      expect(zero.screen).not.toMatch(/invalid size|Invalid array length|RangeError|FATAL|Aborted/i);
      expect(zero.exitCode, zero.screen).toBe(0);
      const eighty = await (await PtySession.start(args, { env: env(), rows: 24, cols: 80 })).exited;
      expect(eighty.exitCode, eighty.screen).toBe(0);
      expect(stable(zero.screen)).toBe(stable(eighty.screen));
    },
    60_000,
  );
});

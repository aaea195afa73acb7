/**
 * `npm run demo` (scripts/demo.mjs) as a new user runs it: its drill exits 13 on purpose (db_analytics
 * has no restorable backup), and the demo says that this failure was its point, never "every step
 * passed" right after it.
 */
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/built-cli.js';
import { pgSkipReason } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/e2e/demo.test.ts skipped: ${skip}`);

describe.skipIf(!!skip)('the demo', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it("says the drill's exit 13 was the point, right after the drill and at the end", async () => {
    const r = await execa(process.execPath, ['--import', 'tsx', 'scripts/demo.mjs'], {
      cwd: ROOT,
      all: true,
      reject: false,
      stdin: 'ignore',
      env: { NO_COLOR: '1' },
    });
    expect(r.exitCode, r.all).toBe(0);
    const out = String(r.all);
    expect(out).toContain('Exit 13 is what this step is for: db_analytics has no restorable backup');
    expect(out).toMatch(/Demo finished: every step ended as intended; the drill's exit 13 was the demo's point\.$/m);
    expect(out).not.toContain('every step passed');
  }, 300_000);
});

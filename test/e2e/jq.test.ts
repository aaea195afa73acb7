/**
 * --jq filters that never end or never stop growing, through the built bin/svc against the sandbox
 * (issue 17): a signal still ends the run with its exit code, and running out of memory is exit 1
 * with advice, within a bound, with nothing of jq's WebAssembly runtime ("Aborted()") on the terminal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePeakRss } from '../support/peak-rss.js';
import { cleanupE2e, ensureBuilt, errorEnvelope, expectNoSecrets, spawnSvc, startE2eSandbox, type E2eSandbox } from './helpers.js';

let sb: E2eSandbox;

beforeAll(async () => {
  await ensureBuilt();
  sb = await startE2eSandbox();
});

afterAll(async () => {
  await sb?.stop();
  cleanupE2e();
});

const profileRequests = () => sb.requests.filter((e) => e.path === '/api/v1/profile').length;

/** Resolves once `count()` exceeds `above`, or fails after `ms`. */
async function until(what: string, count: () => number, above: number, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (count() <= above) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await sleep(25);
  }
}

/** The child's exit code, or null when it is still running after `ms` (it is then killed). */
async function exitWithin(child: ReturnType<typeof spawnSvc>, ms: number): Promise<number | null> {
  const timer = sleep(ms).then(() => 'running' as const);
  const outcome = await Promise.race([child.then((r) => r.exitCode ?? null), timer]);
  if (outcome !== 'running') return outcome;
  child.kill('SIGKILL');
  await child;
  return null;
}

describe('--jq that never ends', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s stops `last(range(1e18))` at once: exit %i', async (signal, code) => {
    const before = profileRequests();
    const child = spawnSvc(['profile', '--jq', 'last(range(1e18))'], { env: sb.env() });
    // The profile has arrived: from here on, svc is running the filter (which would take ages).
    await until('GET /profile', profileRequests, before);
    await sleep(500);
    child.kill(signal);
    expect(await exitWithin(child, 5_000), `svc ignored ${signal} while jq ran`).toBe(code);
    const r = await child;
    expect(String(r.stdout)).toBe('');
    expect(errorEnvelope(String(r.stderr))).toMatchObject({ code: 'interrupted' });
    expectNoSecrets(`${r.stdout}${r.stderr}`);
  });
});

describe('--jq that runs out of memory', () => {
  it('`[range(3e8)] | length`: exit 1 with what to do instead, no "Aborted()", memory bounded', async () => {
    const rss = measurePeakRss(sb.env());
    const r = await spawnSvc(['profile', '--jq', '[range(3e8)] | length'], { env: rss.env });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(String(r.stdout)).toBe('');
    expect(errorEnvelope(String(r.stderr))).toMatchObject({
      code: 'jq_out_of_memory',
      message: 'The --jq expression ran out of memory: svc gives jq 512 MiB for its values.',
      nextAction: expect.stringMatching(/Narrow the expression.*pipe it into jq/),
    });
    expect(out).not.toContain('Aborted');
    // jq's values are held to 512 MiB (was: up to 2 GiB, about 1.6 GiB measured before it aborted).
    expect(rss.mib()).toBeLessThan(640);
    expectNoSecrets(out);
  }, 60_000);
});

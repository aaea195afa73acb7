import { existsSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, cleanupBuiltCli, ensureBuilt } from './built-cli.js';
import { disposePtys, PtySession, ptySkipReason } from './pty.js';
import { waitFor } from './restore-harness.js';

const skip = ptySkipReason();
if (skip) console.warn(`test/support/pty.test.ts skipped: ${skip}`);

/** A process that is gone, not a zombie nobody reaped. */
function gone(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // A recycled pid would be some other live process; ours is either absent or a zombie.
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z') && !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('bin/svc');
  } catch {
    return true;
  }
}

/** The pty helper itself: svc's own pid, the terminal size, the kernel's SIGHUP, and nothing left running. */
describe.skipIf(!!skip)('test/support/pty.ts', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  afterEach(() => disposePtys());
  afterAll(() => cleanupBuiltCli());

  // `svc auth login` in a terminal asks for the token at a hidden prompt and waits; nothing is sent before.
  const login = () => PtySession.start(['auth', 'login'], { env: cleanEnv({ SVC_BASE_URL: 'http://127.0.0.1:9' }), rows: 20, cols: 90 });

  it('runs svc in a terminal of the given size: its help is wrapped to the columns', async () => {
    const r = await (await PtySession.start(['--help'], { env: cleanEnv(), cols: 50 })).exited;
    expect(r.exitCode, r.screen).toBe(0);
    // Prose wraps at word boundaries; example command lines ("  $ svc ...") break as shell continuations.
    const lines = r.screen.split('\n');
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(50);
    const wide = await (await PtySession.start(['--help'], { env: cleanEnv(), cols: 160 })).exited;
    expect(Math.max(...wide.screen.split('\n').map((l) => l.length))).toBeGreaterThan(50);
  });

  it('the pid is svc itself; closing the terminal sends it SIGHUP: the prompt ends with 129 and the process is reaped', async () => {
    const pty = await login();
    expect(readFileSync(`/proc/${pty.pid}/cmdline`, 'utf8').split('\0').slice(0, 4)).toEqual([process.execPath, BIN, 'auth', 'login']);
    await pty.waitForText('Paste your API token');
    pty.hangUp();
    const r = await pty.exited;
    expect(r.signal).toBeUndefined();
    expect(r.exitCode).toBe(129);
    expect(gone(pty.pid)).toBe(true);
  });

  it('a session the test abandons is killed and reaped by disposePtys', async () => {
    const pty = await login();
    await pty.waitForText('Paste your API token');
    await disposePtys();
    await waitFor(`svc (pid ${pty.pid}) gone`, () => gone(pty.pid) || undefined, 5_000);
    expect((await pty.exited).signal).toBe('SIGKILL');
  });

  it('a command that cannot start is reported, not mistaken for svc', async () => {
    await expect(PtySession.start(['--version'], { env: cleanEnv(), node: '/nonexistent/node' })).rejects.toThrow(/cannot run \/nonexistent\/node/);
  });

  it('waitForText fails with what the terminal showed when svc exits first', async () => {
    const pty = await PtySession.start(['--version'], { env: cleanEnv() });
    await expect(pty.waitForText('never printed')).rejects.toThrow(/svc exited before never printed showed; the terminal showed:\n0\.\d+\.\d+/);
  });
});

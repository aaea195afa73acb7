/**
 * tools/private-tmp.mjs, which npm test and .ci/run start vitest through: the command's TMPDIR is a
 * tmpfs that only it sees, gone with it; where that cannot be, the command runs as it is and the
 * user is told. Either way the command's exit code is what the caller gets.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TOOL = fileURLToPath(new URL('../../tools/private-tmp.mjs', import.meta.url));
const ROOT_ON_LINUX = process.platform === 'linux' && process.getuid?.() === 0;

/** Runs `sh -c script` through the tool; `whileRunning` gets the script's first stdout line while it waits on stdin. */
async function throughTool(script: string, env: NodeJS.ProcessEnv, whileRunning?: (line: string) => void) {
  const child = spawn(process.execPath, [TOOL, 'sh', '-c', script], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout });
  reader.on('line', (line) => {
    lines.push(line);
    if (lines.length === 1) {
      whileRunning?.(line);
      child.stdin.end('go\n');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, lines, stderr };
}

describe('tools/private-tmp.mjs', () => {
  // The first line names TMPDIR, then the script waits for the test to look from outside.
  const SCRIPT = 'echo "$TMPDIR"; read _; stat -f -c %T "$TMPDIR"; echo kept > "$TMPDIR/file"; exit 7';

  it('as root on Linux, TMPDIR is a tmpfs no other process sees, gone when the command ends (elsewhere the command runs as it is, and says why); its exit code is kept', async () => {
    if (!ROOT_ON_LINUX) {
      const r = await throughTool('echo "$TMPDIR"; read _; exit 7', { ...process.env, SVC_TEST_PRIVATE_TMP: '' });
      expect(r.code).toBe(7);
      expect(r.lines[0]).not.toMatch(/svc-test-tmp-/);
      expect(r.stderr).toMatch(
        /^npm test: temporary files stay in \S+ \((not Linux|no private mount namespace allowed .*)\); a tmpfs of their own is faster\.\n$/,
      );
      return;
    }
    let seenOutside: { mounted: boolean; entries: boolean } | undefined;
    const r = await throughTool(SCRIPT, { ...process.env, SVC_TEST_PRIVATE_TMP: '' }, (dir) => {
      const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
      seenOutside = { mounted: mounts.includes(` ${dir} `), entries: existsSync(`${dir}/file`) };
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(7);
    const [dir, fsType] = r.lines;
    expect(dir).toMatch(/\/svc-test-tmp-[^/]+$/);
    expect(fsType).toBe('tmpfs');
    expect(seenOutside).toEqual({ mounted: false, entries: false });
    expect(existsSync(dir!), 'the mount point is removed after').toBe(false);
  });

  it('with SVC_TEST_PRIVATE_TMP=0 the command runs in the temp dir it was given, and says so', async () => {
    const r = await throughTool(SCRIPT.replace('stat -f -c %T "$TMPDIR"; echo kept > "$TMPDIR/file"; ', ''), {
      ...process.env,
      SVC_TEST_PRIVATE_TMP: '0',
      TMPDIR: process.env.TMPDIR ?? '/tmp',
    });
    expect(r.code).toBe(7);
    expect(r.lines[0]).toBe(process.env.TMPDIR ?? '/tmp');
    expect(r.stderr).toMatch(/^npm test: temporary files stay in \S+ \(SVC_TEST_PRIVATE_TMP=0\); a tmpfs of their own is faster\.\n$/);
  });
});

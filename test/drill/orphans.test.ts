import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { reapDirectories } from '../../src/drill/orphans.js';
import { processStart } from '../../src/restore/owner.js';

/**
 * Which directories a later drill takes for a killed run's (cli-contract 9.12): those whose owner.json
 * names an svc process that no longer exists, a pid reused by another process included (its start
 * time in /proc/<pid>/stat differs); never a live run's, never one without a record (a kept one).
 */
let root = '';
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-orphans-test-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function owned(name: string, svc: { pid: number; start: string | null }, kind = 'artifact'): string {
  const dir = join(root, name);
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'artifact.dump'), 'PGDMP');
  writeFileSync(join(dir, 'owner.json'), JSON.stringify({ kind, host: hostname(), svc }));
  return dir;
}

it('removes what a dead or reused pid owned, keeps what a live process or nobody owns, and says what it removed', async () => {
  const live = execa('sleep', ['30']);
  const dead = execa('true');
  await dead;
  try {
    const liveStart = processStart(live.pid!)!;
    expect(liveStart).toMatch(/^\d+$/);
    owned('svc-restore-live', { pid: live.pid!, start: liveStart });
    owned('svc-restore-dead', { pid: dead.pid!, start: '12345' });
    // The same pid, but not the process that wrote the record: pid reuse cannot fool it.
    owned('svc-restore-reused', { pid: live.pid!, start: String(Number(liveStart) - 1) });
    owned('svc-pgpass-dead', { pid: dead.pid!, start: null }, 'pgpass');
    owned('svc-restore-otherhost', { pid: dead.pid!, start: null });
    writeFileSync(
      join(root, 'svc-restore-otherhost', 'owner.json'),
      JSON.stringify({ kind: 'artifact', host: `not-${hostname()}`, svc: { pid: dead.pid, start: null } }),
    );
    mkdirSync(join(root, 'svc-drill-kept'));
    mkdirSync(join(root, 'unrelated'));
    writeFileSync(join(root, 'unrelated', 'owner.json'), JSON.stringify({ kind: 'artifact', host: hostname(), svc: { pid: dead.pid, start: null } }));
    const elsewhere = owned('svc-restore-target', { pid: dead.pid!, start: null });
    const linkRoot = mkdtempSync(join(tmpdir(), 'svc-orphans-link-'));
    symlinkSync(elsewhere, join(linkRoot, 'svc-restore-link'));

    const said: string[] = [];
    await reapDirectories([root, linkRoot], (t) => said.push(t));

    expect(readdirSync(root).sort()).toEqual(['svc-drill-kept', 'svc-restore-live', 'svc-restore-otherhost', 'unrelated']);
    // A link is never followed: the directory it names is reaped only where it is found itself.
    expect(readdirSync(linkRoot)).toEqual(['svc-restore-link']);
    rmSync(linkRoot, { recursive: true, force: true });
    expect(said.sort()).toEqual(
      [
        `Removed the downloaded artifact of an earlier run whose svc process (pid ${dead.pid}) no longer exists: ${join(root, 'svc-restore-dead')}.`,
        `Removed the downloaded artifact of an earlier run whose svc process (pid ${live.pid}) no longer exists: ${join(root, 'svc-restore-reused')}.`,
        `Removed the downloaded artifact of an earlier run whose svc process (pid ${dead.pid}) no longer exists: ${join(root, 'svc-restore-target')}.`,
        `Removed the password file of an earlier run whose svc process (pid ${dead.pid}) no longer exists: ${join(root, 'svc-pgpass-dead')}.`,
      ].sort(),
    );
  } finally {
    live.kill('SIGKILL');
    await live.catch(() => undefined);
  }
});

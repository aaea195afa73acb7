import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { targetStateAfter } from '../../src/restore/failure.js';
import type { RestorePlan } from '../../src/restore/plan.js';
import { parseTarget } from '../../src/restore/target/target.js';

function plan(dsn: string, env: Record<string, string | undefined> = {}): RestorePlan {
  return {
    target: parseTarget(dsn, env),
    mode: 'new_database',
    jobs: 1,
    workDir: '/tmp',
    keepArtifact: false,
    confirm: false,
    interactive: false,
    connections: 8,
    analyze: true,
    receiptPath: undefined,
    keepPartial: false,
  };
}

/** The command inside the hint's parentheses. */
function dropdbHint(p: RestorePlan): string {
  const text = targetStateAfter('restore', p);
  const match = /\((dropdb .*)\)\.$/s.exec(text);
  if (!match) throw new Error(`no dropdb hint in: ${text}`);
  return match[1]!;
}

/** What a POSIX shell makes of the pasted hint: dropdb's argv, with a stand-in that prints it. */
async function argvAfterPaste(command: string): Promise<string[]> {
  const { stdout } = await execa('/bin/sh', ['-c', `dropdb() { printf '%s\\0' "$@"; }\n${command}`], { stripFinalNewline: false });
  return stdout.split('\0').slice(0, -1);
}

describe('the dropdb hint after a failed new-database restore pastes back into a shell', () => {
  it.each([
    [
      'postgresql://app:pw@db.example.com:5432/restored',
      'dropdb -h db.example.com -p 5432 -U app restored',
      ['-h', 'db.example.com', '-p', '5432', '-U', 'app', 'restored'],
    ],
    ['postgresql://app@h/with%20space', "dropdb -h h -p 5432 -U app 'with space'", ['-h', 'h', '-p', '5432', '-U', 'app', 'with space']],
    ["postgresql://app@h/o'quote", "dropdb -h h -p 5432 -U app 'o'\\''quote'", ['-h', 'h', '-p', '5432', '-U', 'app', "o'quote"]],
    ['postgresql://app@h/sales%232024', "dropdb -h h -p 5432 -U app 'sales#2024'", ['-h', 'h', '-p', '5432', '-U', 'app', 'sales#2024']],
    ['postgresql://app@h/%24(rm%20-rf%20~)%60x%60', "dropdb -h h -p 5432 -U app '$(rm -rf ~)`x`'", ['-h', 'h', '-p', '5432', '-U', 'app', '$(rm -rf ~)`x`']],
    ['postgresql://app@h/caf%C3%A9%20%C3%BC', "dropdb -h h -p 5432 -U app 'café ü'", ['-h', 'h', '-p', '5432', '-U', 'app', 'café ü']],
    ['postgresql://app@h/line%0Abreak', `dropdb -h h -p 5432 -U app "$(printf '%b' 'line\\0012break')"`, ['-h', 'h', '-p', '5432', '-U', 'app', 'line\nbreak']],
    ['postgresql://app@h/-rf', 'dropdb -h h -p 5432 -U app -- -rf', ['-h', 'h', '-p', '5432', '-U', 'app', '--', '-rf']],
    ['postgresql://o%27brien%20%231@h/d', "dropdb -h h -p 5432 -U 'o'\\''brien #1' d", ['-h', 'h', '-p', '5432', '-U', "o'brien #1", 'd']],
    ['postgresql://app@%2Fvar%2Frun%2Fpg%20x:5433/d', "dropdb -h '/var/run/pg x' -p 5433 -U app d", ['-h', '/var/run/pg x', '-p', '5433', '-U', 'app', 'd']],
    // libpq's default socket: no -h, which would be TCP localhost to dropdb.
    ['postgresql://app@/d', 'dropdb -p 5432 -U app d', ['-p', '5432', '-U', 'app', 'd']],
  ])('%s -> %s', async (dsn, command, argv) => {
    const hint = dropdbHint(plan(dsn));
    expect(hint).toBe(command);
    expect(await argvAfterPaste(hint)).toEqual(argv);
    expect(hint).not.toContain(':pw');
  });

  it('says where the new database is, with no password', () => {
    const text = targetStateAfter('restore', plan('postgresql://app:s3cret@h/d'));
    expect(text).toContain('The new database "d" may be partly restored');
    expect(text).not.toContain('s3cret');
  });
});

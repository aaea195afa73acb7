import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionTree, printed } from '../../../src/commands/completion/complete.js';
import { OPERATION_TABLE } from '../../../src/api/operation-table.js';
import { buildProgram } from '../../../src/program.js';
import { expectNoToken, run, useServer } from '../harness.js';

const { server, configHome } = useServer();

/** `svc complete -- ...words`: what the completion scripts run on a Tab, in-process. */
async function tab(...words: string[]) {
  const r = await run(server, configHome(), ['complete', '--', ...words]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  expectNoToken(r);
  const lines = r.stdout.split('\n');
  expect(lines.pop()).toBe('');
  // The last line is tab's directive: 4, no file names.
  expect(lines.pop()).toBe(':4');
  return lines.map((l) => l.split('\t')[0]!);
}

describe('svc complete -- (what a Tab offers)', () => {
  it('after `svc da`: databases, with its description', async () => {
    const r = await run(server, configHome(), ['complete', '--', 'da']);
    expect(r.stdout).toBe('databases\tProtected databases (created in the dashboard only)\n:4\n');
  });

  it('after `svc databases `: its verbs', async () => {
    expect(await tab('databases', '')).toEqual(['list', 'get', 'help']);
  });

  it('after `svc `: every command, svc api and svc completion included, the hidden complete not', async () => {
    const offered = await tab('');
    expect(offered).toEqual([
      'auth',
      'profile',
      'databases',
      'destinations',
      'backups',
      'evidence',
      'restore',
      'recovery',
      'tools',
      'mcp',
      'sandbox',
      'api',
      'completion',
      'help',
    ]);
  });

  it('svc mcp: its verbs, and the clients config writes a snippet for', async () => {
    expect(await tab('mcp', '')).toEqual(['serve', 'config', 'help']);
    expect(await tab('mcp', 'config', '')).toEqual(['claude', 'cursor', 'vscode', 'codex']);
    expect(await tab('mcp', 'serve', '--')).toEqual(expect.arrayContaining(['--read-only', '--tools']));
  });

  it('verbs of a group whose name comes after global options', async () => {
    expect(await tab('--profile', 'prod', '--json', 'backups', '')).toEqual(['list', 'get', 'trigger', 'help']);
  });

  it("a verb's flags, then the global ones (accepted after the verb too)", async () => {
    const flags = await tab('databases', 'list', '--');
    expect(flags.slice(0, 5)).toEqual(['--limit', '--cursor', '--all', '--no-headers', '--help']);
    expect(flags).toEqual(
      expect.arrayContaining(['--json', '--jq', '--profile', '--base-url', '--quiet', '--verbose', '--timeout', '--max-retries', '--no-color']),
    );
    expect(flags).not.toContain('--version');
  });

  it('flags by prefix', async () => {
    expect(await tab('databases', 'list', '--li')).toEqual(['--limit']);
    expect(await tab('backups', 'trigger', 'db_1', '--w')).toEqual(['--wait', '--wait-timeout']);
    expect(await tab('--ver')).toEqual(['--version', '--verbose']);
  });

  it('after a flag that takes a free value, nothing (not the commands)', async () => {
    expect(await tab('databases', 'list', '--limit', '')).toEqual([]);
    expect(await tab('--profile', '')).toEqual([]);
  });

  it('after a flag without a value, the next word is a command again', async () => {
    expect(await tab('--json', 'data')).toEqual(['databases']);
  });

  it('fixed values: the shells of svc completion', async () => {
    expect(await tab('completion', '')).toEqual(['bash', 'zsh', 'fish', 'powershell']);
    expect(await tab('completion', 'p')).toEqual(['powershell']);
  });

  it('fixed values: the methods of svc api -X, and its id-free paths', async () => {
    expect(await tab('api', '-X', '')).toEqual(['GET', 'POST']);
    expect(await tab('api', '--method', 'P')).toEqual(['POST']);
    expect(await tab('api', '/d')).toEqual(['/databases', '/destinations']);
    expect(await tab('api', '-')).toEqual(expect.arrayContaining(['-X', '-f']));
  });

  it('svc api offers every path of the operation table that has no parameter, and every method, once each', async () => {
    const rows = Object.values(OPERATION_TABLE);
    const paths = [...new Set(rows.map((r) => r.path).filter((p) => !p.includes(':')))];
    expect(paths.length).toBeGreaterThan(3);
    expect((await tab('api', '')).filter((w) => w.startsWith('/')).sort()).toEqual(paths.sort());
    expect((await tab('api', '-X', '')).sort()).toEqual([...new Set(rows.map((r) => r.method))].sort());
  });

  it('-h in the words is a word being completed, not a request for help', async () => {
    expect(await tab('databases', '-h', '')).toEqual(['list', 'get', 'help']);
  });

  it('never calls the service, with a token and a base URL configured', async () => {
    await tab('databases', '');
    await tab('api', '');
    await run(server, configHome(), ['completion', 'bash']);
    expect(server.exchanges).toEqual([]);
  });
});

describe('the completion tree', () => {
  it('offers 1..16 after --connections and the choices commander knows', () => {
    const program = new Command('svc');
    const restore = program.command('restore');
    restore
      .command('create')
      .option('--connections <n>', 'parallel ranged download connections')
      .addOption(new Option('--mode <mode>', 'restore mode').choices(['new_database', 'in_place']));
    const tree = completionTree(program);
    const values = (words: string[]) =>
      printed(() => tree.parse(words))
        .split('\n')
        .filter((l) => l && !l.startsWith(':'))
        .map((l) => l.split('\t')[0]);
    expect(values(['restore', 'create', '--connections', ''])).toEqual(Array.from({ length: 16 }, (_, i) => String(i + 1)));
    expect(values(['restore', 'create', '--mode', ''])).toEqual(['new_database', 'in_place']);
    expect(values(['restore', 'create', '--mode', 'in'])).toEqual(['in_place']);
  });

  it("is svc's whole tree whatever argv would build: every group's verbs", () => {
    const tree = completionTree(buildProgram({ run: async () => {} }));
    const paths = [...tree.commands.keys()];
    for (const verb of [
      'databases list',
      'databases get',
      'backups trigger',
      'evidence list',
      'restore create',
      'restore run',
      'recovery candidate',
      'tools get',
      'auth login',
      'api',
      'completion',
    ]) {
      expect(paths).toContain(verb);
    }
    expect(paths).not.toContain('complete');
  });
});

describe('svc completion <shell>', () => {
  // Each script hands the words to svc complete as separate arguments; real-shells.test.ts runs
  // bash, zsh and fish. PowerShell is not on this machine: its text is all that can be checked.
  it.each([
    ['bash', ['# bash completion for svc', 'svc complete -- "${typed[@]}"', 'complete -F __svc_complete svc'], /\beval\b/],
    ['zsh', ['#compdef svc', 'svc complete -- "${typed[@]}"', 'compdef _svc svc'], /\beval\b/],
    [
      'fish',
      ['# fish completion for svc', 'svc complete -- $typed "$current"', "complete --command svc --no-files --arguments '(__svc_complete)'"],
      /\beval\b/,
    ],
    [
      'powershell',
      ['Register-ArgumentCompleter -Native -CommandName svc', "$arguments = @('complete', '--') + $typed + @($current)", '& $svc @arguments'],
      /Invoke-Expression|\biex\b/i,
    ],
  ])('%s: a script that calls back svc complete -- with the words as arguments', async (shell, parts, never) => {
    const r = await run(server, configHome(), ['completion', shell]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    for (const part of parts) expect(r.stdout).toContain(part);
    // Nowhere outside a comment does the script eval the line.
    const code = r.stdout.split('\n').filter((line) => !line.trimStart().startsWith('#'));
    expect(code.join('\n')).not.toMatch(never);
    expect(server.exchanges).toEqual([]);
  });

  it('an unknown shell is exit 2 naming the ones there are', async () => {
    const r = await run(server, configHome(), ['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Unknown shell "tcsh": svc writes completion scripts for bash, zsh, fish, powershell.');
  });
});

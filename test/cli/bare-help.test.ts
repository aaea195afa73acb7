/**
 * Bare `svc` and `svc <group>` print their help on stdout and exit 0, as gh does (cli-contract 4);
 * usage lines show the options a command requires.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

describe('help for a bare command line', () => {
  it('svc alone: the root help on stdout, exit 0, nothing on stderr', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: svc \[options\] \[command\]/);
    expect(r.stdout).toContain('Commands:');
    expect(r.stderr).toBe('');
  });

  it.each(['auth', 'databases', 'destinations', 'backups', 'evidence', 'restore', 'recovery', 'tools'])(
    'svc %s: the group help with its verbs on stdout, exit 0',
    async (group) => {
      const r = await runCli([group]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: svc ${group} \\[options\\] \\[command\\]`));
      expect(r.stdout).toContain('Commands:');
      expect(r.stderr).toBe('');
    },
  );

  it('global options alone still mean the root help: svc --json', async () => {
    const r = await runCli(['--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: svc /);
  });

  it('a mistyped group is still a usage error with a suggestion (exit 2)', async () => {
    const r = await runCli(['databses']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(Did you mean databases?)');
    expect(r.stdout).toBe('');
  });

  it('a group with an unknown verb is a usage error naming it (exit 2)', async () => {
    const r = await runCli(['databases', 'lst']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'lst'");
  });
});

describe('usage lines show what a command requires', () => {
  it('svc recovery candidate: --incident-time is in the usage line, in help and in the error', async () => {
    const help = await runCli(['recovery', 'candidate', '--help']);
    expect(help.stdout).toMatch(/^Usage: svc recovery candidate <databaseId> --incident-time <iso8601> \[options\]$/m);
    const r = await runCli(['recovery', 'candidate', 'db_orders']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: svc recovery candidate <databaseId> --incident-time <iso8601> [options]');
  });
});

import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, groupsToBuild } from '../src/program.js';

/** Everything commander prints for argv, with the program built for that argv (or in full). */
function output(argv: string[], buildFor: string[] | undefined): string {
  let text = '';
  const program = buildProgram({ run: async () => {} }, buildFor);
  const configure = (c: Command): void => {
    c.exitOverride().configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
    c.commands.forEach(configure);
  };
  configure(program);
  try {
    program.parse(argv, { from: 'user' });
  } catch {
    // exitOverride: help and errors end here.
  }
  return text;
}

describe('lazy command registration', () => {
  it.each([
    [['--help'], 'none'],
    [[], 'none'],
    [['--json', '--base-url', 'https://x', '--version'], 'none'],
    [['databases', 'list', '--json'], 'databases'],
    [['--base-url', 'https://backup.example.com', '--timeout', '5', 'restore', 'create'], 'restore'],
    [['--base-url=https://x', 'backups', 'get', 'bj_1'], 'backups'],
    [['help', 'databases'], 'all'],
    [['datbases', 'list'], 'all'],
    [['--', 'databases'], 'all'],
    [['profile'], 'none'],
    [['sandbox', '--port', '0'], 'none'],
    [['api', '/databases', '--paginate'], 'none'],
    [['completion', 'bash'], 'none'],
    [['complete', '--', 'databases', ''], 'none'],
    [['--profile', 'prod', '--jq', '.x', 'databases', 'list'], 'databases'],
  ])('argv %j builds %s', (argv, expected) => {
    expect(groupsToBuild(argv)).toBe(expected);
  });

  it.each([
    [['--help']],
    [[]],
    [['help']],
    [['help', 'backups']],
    [['databases', '--help']],
    [['restore', 'create', '--help']],
    [['--json', 'recovery', 'candidate', '--help']],
    [['sandbox', '--help']],
    [['profile', '--help']],
    [['datbases']],
    [['databases', 'lst']],
  ])('%j prints the same with only the named group built as with every command built', (argv) => {
    const full = output(argv, undefined);
    expect(full.length).toBeGreaterThan(0);
    expect(output(argv, argv)).toBe(full);
  });
});

/**
 * `svc restore create --help` and `svc restore drill --help` (issue 34): the common case first, the
 * options a run seldom needs under "More options", so the first screen is what most runs need.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';

/** The option flags listed under one heading of the help. */
function group(help: string, heading: string): string[] {
  const start = help.split('\n').findIndex((l) => l === heading);
  if (start < 0) return [];
  const lines = help.split('\n').slice(start + 1);
  const end = lines.findIndex((l) => l === '' || /^\S/.test(l));
  return lines.slice(0, end < 0 ? undefined : end).flatMap((l) => /^ {2}(?:-\w, )?(--[\w-]+)/.exec(l)?.[1] ?? []);
}

describe('restore help: the common case first', () => {
  it.each([
    [
      ['restore', 'create', '--help'],
      ['--backup', '--database', '--latest', '--before', '--window', '--dry-run', '--target', '--in-place', '--confirm', '--help'],
      [
        '--jobs',
        '--work-dir',
        '--keep-artifact',
        '--connections',
        '--no-analyze',
        '--receipt',
        '--terminate-connections',
        '--drop-previous',
        '--keep-partial',
        '--no-tablespaces',
        '--database-settings',
        '--idempotency-key',
      ],
    ],
    [
      ['restore', 'drill', '--help'],
      ['--all', '--backup', '--latest', '--before', '--max-age', '--check', '--report', '--dry-run', '--help'],
      [
        '--scratch',
        '--pg-bindir',
        '--isolation',
        '--parallel',
        '--shard',
        '--metrics-file',
        '--pushgateway',
        '--keep',
        '--strict',
        '--jobs',
        '--connections',
        '--work-dir',
        '--no-analyze',
        '--no-rows-check',
        '--baseline',
        '--drift-min-rows',
        '--max-shrink',
        '--deadline',
      ],
    ],
  ])('svc %s: Options holds the common flags, More options the rest', async (argv, common, more) => {
    const r = await runCli(argv);
    expect(r.code).toBe(0);
    expect(group(r.stdout, 'Options:')).toEqual(common);
    expect(group(r.stdout, 'More options:')).toEqual(more);
    expect(r.stdout.indexOf('Options:')).toBeLessThan(r.stdout.indexOf('More options:'));
  });
});

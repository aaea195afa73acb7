/**
 * Shared by the test/commands/<resource>/options.test.ts tables: one assertion per row on what a
 * verb's options() makes of an argv (through parseOptions, the real command tree, no session).
 */
import { expect } from 'vitest';
import { parseOptions } from '../support/verb-options.js';

export type Env = Record<string, string | undefined>;

/** A row that parses: its name, argv as typed after `svc`, the exact options object, and the environment. */
export type OkRow = [name: string, argv: string[], expected: unknown, env?: Env];
/** A row refused with exit 2: its name, argv, what the message must say, and the environment. */
export type UsageRow = [name: string, argv: string[], message: RegExp, env?: Env];

const SINGLE_VERB_COMMANDS = new Set(['profile', 'sandbox', 'api', 'completion']);

/** "databases get" for ['databases', 'get', 'db_1']: rows always start with the command words. */
function verbOf(argv: string[]): string {
  return SINGLE_VERB_COMMANDS.has(argv[0] ?? '') ? argv[0]! : argv.slice(0, 2).join(' ');
}

/** The verb named by argv ran, and its options() returned exactly `expected` (undefined members included). */
export async function expectOptions(argv: string[], expected: unknown, env: Env = {}, verb = verbOf(argv)): Promise<void> {
  expect(await parseOptions(argv, env)).toStrictEqual({ ok: true, options: expected, verb });
}

/** Refused as a usage error (exit 2) with a message matching `message`, never showing any of `hidden`. */
export async function expectUsage(argv: string[], message: RegExp, env: Env = {}, hidden: string[] = []): Promise<void> {
  const r = await parseOptions(argv, env);
  expect(r).toEqual({ ok: false, exitCode: 2, message: expect.stringMatching(message) });
  for (const secret of hidden) expect(r.ok ? '' : r.message).not.toContain(secret);
}

/** Global options (cli-contract 1) before the command, after the verb's arguments, and both at once. */
const PLACEMENTS: Array<[string, (argv: string[]) => string[]]> = [
  ['--json --timeout 5 before', (argv) => ['--json', '--timeout', '5', ...argv]],
  ['--json --timeout 5 after', (argv) => [...argv, '--json', '--timeout', '5']],
  [
    'every global option, around',
    (argv) => [
      '--base-url',
      'http://127.0.0.1:9',
      '--profile',
      'prod',
      '--quiet',
      '--timeout=5',
      ...argv,
      '--verbose',
      '--max-retries',
      '2',
      '--no-color',
      '--json',
    ],
  ],
];

/**
 * Each OkRow once per placement of the global options, with the same expected options: the
 * globals belong to the session, never to the verb.
 */
export function withGlobals(rows: OkRow[]): Array<[name: string, argv: string[], expected: unknown, env: Env, verb: string]> {
  return rows.flatMap(([name, argv, expected, env = {}]) =>
    PLACEMENTS.map(([where, place]): [string, string[], unknown, Env, string] => [`${name}; ${where}`, place(argv), expected, env, verbOf(argv)]),
  );
}

/**
 * The paging flags every list verb shares (cli-contract 3), for the list command `argv` whose
 * options without paging flags are `base`: each flag alone, all together, and the boundaries.
 */
export function pagingRows(argv: string[], base: Record<string, unknown>, env: Env = {}): OkRow[] {
  const opts = (page: { limit?: number; cursor?: string; all?: boolean; headers?: boolean }) => ({
    ...base,
    limit: undefined,
    cursor: undefined,
    all: false,
    headers: true,
    ...page,
  });
  return [
    ['defaults: first page, server-chosen size', argv, opts({}), env],
    ['--limit 1', [...argv, '--limit', '1'], opts({ limit: 1 }), env],
    ['--limit 10000, the largest', [...argv, '--limit', '10000'], opts({ limit: 10_000 }), env],
    ['--cursor', [...argv, '--cursor', 'c_page2'], opts({ cursor: 'c_page2' }), env],
    ['--cursor with spaces around is trimmed', [...argv, '--cursor', ' c_page2 '], opts({ cursor: 'c_page2' }), env],
    ['--all', [...argv, '--all'], opts({ all: true }), env],
    ['--limit, --cursor and --all', [...argv, '--all', '--cursor', 'c_page2', '--limit', '50'], opts({ limit: 50, cursor: 'c_page2', all: true }), env],
    ['--no-headers', [...argv, '--no-headers'], opts({ headers: false }), env],
  ];
}

/** Every local check of the paging flags: exit 2 naming the flag and the value. */
export function pagingRefusals(argv: string[], env: Env = {}): UsageRow[] {
  const limit = /^Invalid --limit ".*": a whole number from 1 to 10000\.$/;
  return [
    ['--limit 0', [...argv, '--limit', '0'], /^Invalid --limit "0": a whole number from 1 to 10000\.$/, env],
    ['--limit 10001, over the cap the message names', [...argv, '--limit', '10001'], /^Invalid --limit "10001": a whole number from 1 to 10000\.$/, env],
    ['--limit -1', [...argv, '--limit', '-1'], limit, env],
    ['--limit abc', [...argv, '--limit', 'abc'], /^Invalid --limit "abc"/, env],
    ['--limit 1.5', [...argv, '--limit', '1.5'], /^Invalid --limit "1.5"/, env],
    ['--limit 1e3', [...argv, '--limit', '1e3'], /^Invalid --limit "1e3"/, env],
    ['--limit " 5"', [...argv, '--limit', ' 5'], limit, env],
    ['--limit ""', [...argv, '--limit', ''], /^Invalid --limit "": a whole number from 1 to 10000\.$/, env],
    ['--limit without a value (commander)', [...argv, '--limit'], /option '--limit <n>' argument missing/, env],
    ['--cursor ""', [...argv, '--cursor', ''], /^Invalid --cursor "": it must not be empty\.$/, env],
    ['--cursor of spaces', [...argv, '--cursor', '   '], /^Invalid --cursor "   ": it must not be empty\.$/, env],
    ['--cursor .', [...argv, '--cursor', '.'], /^Invalid --cursor "\.": "\." and "\.\." cannot name a resource\.$/, env],
    ['--cursor ..', [...argv, '--cursor', '..'], /^Invalid --cursor "\.\.": "\." and "\.\." cannot name a resource\.$/, env],
  ];
}

/** Every local check of a required id argument, `what` as the message names it. */
export function idRefusals(before: string[], what: string, after: string[] = [], env: Env = {}): UsageRow[] {
  const w = what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [
    ['an empty id', [...before, '', ...after], new RegExp(`^Invalid ${w} "": it must not be empty\\.$`), env],
    ['an id of spaces', [...before, '  ', ...after], new RegExp(`^Invalid ${w} "  ": it must not be empty\\.$`), env],
    ['the id "."', [...before, '.', ...after], new RegExp(`^Invalid ${w} "\\.": "\\." and "\\.\\." cannot name a resource\\.$`), env],
    ['the id ".."', [...before, '..', ...after], new RegExp(`^Invalid ${w} "\\.\\.": "\\." and "\\.\\." cannot name a resource\\.$`), env],
  ];
}

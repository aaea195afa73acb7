import { describe, it } from 'vitest';
import { expectOptions, expectUsage, withGlobals, type Env, type OkRow, type UsageRow } from '../options-table.js';

const TOKEN = 'svc_live_argv_0123456789abcdef';

describe('auth login options()', () => {
  const ok: OkRow[] = [
    ['no flags: prompt for the token', ['auth', 'login'], { withToken: false, tokenInArgv: false }],
    ['--with-token: read it from stdin', ['auth', 'login', '--with-token'], { withToken: true, tokenInArgv: false }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals(ok))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  // [name, argv, message, hidden]: the token must never come back in the message.
  const refused: Array<[name: string, argv: string[], message: RegExp, env: Env, hidden: string[]]> = [
    ['two arguments (commander)', ['auth', 'login', TOKEN, `${TOKEN}2`], /too many arguments for 'login'/, {}, [TOKEN]],
    [
      'a token in an unknown --token=value (commander): hidden, the quote kept',
      ['auth', 'login', `--token=${TOKEN}`],
      /^unknown option '--token=…'$/,
      {},
      [TOKEN],
    ],
  ];
  it.each(refused)('refuses %s, without echoing it', (_name, argv, message, env, hidden) => expectUsage(argv, message, env, hidden));

  // Refused by run(), whose hint carries the session's --profile and --base-url; the options keep no token.
  const argvToken: OkRow[] = [
    ['a token as an argument', ['auth', 'login', TOKEN], { withToken: false, tokenInArgv: true }],
    ['a token as an argument, with --with-token', ['auth', 'login', '--with-token', TOKEN], { withToken: true, tokenInArgv: true }],
    ['a token after --', ['auth', 'login', '--', TOKEN], { withToken: false, tokenInArgv: true }],
  ];
  it.each(argvToken)('%s: marked for refusal, the token not kept', (_name, argv, expected, env) => expectOptions(argv, expected, env));
  it('a token as an argument, --json before: marked for refusal', () =>
    expectOptions(['--json', 'auth', 'login', TOKEN], { withToken: false, tokenInArgv: true }, {}, 'auth login'));
});

describe('auth status and auth logout options()', () => {
  const ok: OkRow[] = [
    ['status: the profile in use', ['auth', 'status'], { all: false }],
    ['status --all: every saved profile', ['auth', 'status', '--all'], { all: true }],
    ['logout: no options', ['auth', 'logout'], {}],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals(ok))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ['status: an argument (commander)', ['auth', 'status', 'extra'], /too many arguments for 'status'. Expected 0 arguments but got 1/],
    ['logout: an argument (commander)', ['auth', 'logout', 'extra'], /too many arguments for 'logout'. Expected 0 arguments but got 1/],
    ['status: an unknown option (commander)', ['auth', 'status', '--with-token'], /unknown option '--with-token'/],
    ['logout: --all, which only status has (commander)', ['auth', 'logout', '--all'], /unknown option '--all'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

import { describe, it } from 'vitest';
import { expectOptions, expectUsage, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('sandbox options()', () => {
  const ok: OkRow[] = [
    ['defaults: port 4010, the bundled data', ['sandbox'], { port: 4010, dataDir: undefined }],
    ['--port 0: a free port', ['sandbox', '--port', '0'], { port: 0, dataDir: undefined }],
    ['--port 1', ['sandbox', '--port', '1'], { port: 1, dataDir: undefined }],
    ['--port 65535, the highest', ['sandbox', '--port', '65535'], { port: 65_535, dataDir: undefined }],
    ['--port with a leading zero', ['sandbox', '--port', '08080'], { port: 8080, dataDir: undefined }],
    ['--data', ['sandbox', '--data', 'fixtures'], { port: 4010, dataDir: 'fixtures' }],
    ['--port and --data', ['sandbox', '--data', '/srv/sandbox-data', '--port', '4011'], { port: 4011, dataDir: '/srv/sandbox-data' }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[6]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const port = (v: string) => new RegExp(`^Invalid --port "${v.replace(/[.]/g, '\\.')}": use 0 to 65535 \\(0 picks a free port\\)\\.$`);
  const refused: UsageRow[] = [
    ['--port 65536', ['sandbox', '--port', '65536'], port('65536')],
    ['--port 123456', ['sandbox', '--port', '123456'], port('123456')],
    ['--port -1', ['sandbox', '--port', '-1'], port('-1')],
    ['--port abc', ['sandbox', '--port', 'abc'], port('abc')],
    ['--port 1.5', ['sandbox', '--port', '1.5'], port('1.5')],
    ['--port " 80"', ['sandbox', '--port', ' 80'], port(' 80')],
    ['--port ""', ['sandbox', '--port', ''], port('')],
    ['--port without a value (commander)', ['sandbox', '--port'], /option '--port <n>' argument missing/],
    ['--data ""', ['sandbox', '--data', ''], /^Invalid --data: it must not be empty\.$/],
    ['--data of spaces', ['sandbox', '--data', '  '], /^Invalid --data: it must not be empty\.$/],
    ['an argument (commander)', ['sandbox', '4010'], /too many arguments for 'sandbox'. Expected 0 arguments but got 1/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

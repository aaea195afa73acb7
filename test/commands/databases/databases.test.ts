import { describe, expect, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { fieldIssue, fixtureCopy, runCase, useServer, type Case, type Route } from '../harness.js';

const { server, configHome } = useServer();

const NOT_PROOF = 'A completed backup is not proof of recoverability';

const page1: Route = { path: '/databases', fixture: 'databases-page1', whenQuery: { cursor: null } };
const page2: Route = { path: '/databases', fixture: 'databases-page2', whenQuery: { cursor: 'cur_db_2' } };

const page2Repeating = fixtureCopy('databases-page2');
page2Repeating.nextCursor = 'cur_db_2';

const merged = {
  databases: [...fixture('databases-page1').databases, ...fixture('databases-page2').databases],
};

const listWithExtra = fixtureCopy('databases-page1');
listWithExtra.totalEstimate = 3;
listWithExtra.databases[0].tags = ['prod', 'eu'];

const getWithExtra = fixtureCopy('database-get');
getWithExtra.database.storageBytes = 1234567;
getWithExtra.links = { dashboard: 'https://backup.example.com/db/db_orders' };

const unscheduled = { database: fixture('databases-page2').databases[0] };

function brokenGet(mutate: (db: Record<string, unknown>) => void): unknown {
  const body = fixtureCopy('database-get');
  mutate(body.database);
  return body;
}

const listCases: Case[] = [
  {
    name: 'human table with key columns, relative ages and a More results hint',
    argv: ['databases', 'list'],
    routes: [page1],
    requests: [{ path: '/databases' }],
    code: 0,
    stdout: [
      /ID\s+NAME\s+PROVIDER\s+STATE\s+REGION\s+RETENTION\s+LAST COMPLETED BACKUP/,
      /db_orders\s+orders-prod\s+neon\s+active\s+eu\s+30d\s+5h ago/,
      /db_billing\s+billing\s+rds\s+degraded\s+eu\s+90d\s+2d ago/,
    ],
    stdoutNot: ['db_analytics', 'cur_db_2'],
    stderr: ['More results: add --cursor cur_db_2', '--all'],
  },
  {
    name: '--limit and --cursor are sent as query parameters; last page has no hint',
    argv: ['databases', 'list', '--limit', '2', '--cursor', 'cur_db_2'],
    routes: [page2],
    requests: [{ path: '/databases', query: { limit: '2', cursor: 'cur_db_2' } }],
    code: 0,
    stdout: [/db_analytics\s+analytics\s+supabase\s+paused\s+us\s+7d\s+never/],
    stdoutNot: ['db_orders'],
    stderrEmpty: true,
  },
  {
    name: '--quiet silences the More results hint',
    argv: ['databases', 'list', '--quiet'],
    routes: [page1],
    requests: [{ path: '/databases' }],
    code: 0,
    stdout: ['db_orders', 'db_billing'],
    stderrEmpty: true,
  },
  {
    name: '--all follows nextCursor and prints every item, without a hint',
    argv: ['databases', 'list', '--all'],
    routes: [page1, page2],
    requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
    code: 0,
    stdout: ['db_orders', 'db_billing', /db_analytics\s+analytics\s+supabase\s+paused/],
    stderrEmpty: true,
  },
  {
    name: '--json: one page is exactly the response body, nextCursor included',
    argv: ['databases', 'list', '--json'],
    routes: [page1],
    requests: [{ path: '/databases' }],
    code: 0,
    stdoutJson: fixture('databases-page1'),
  },
  {
    name: '--all --json: one merged document, every item, no nextCursor',
    argv: ['databases', 'list', '--all', '--json'],
    routes: [page1, page2],
    requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
    code: 0,
    stdoutJson: merged,
    stderrEmpty: true,
  },
  {
    name: '--all --limit keeps the page size on every request',
    argv: ['databases', 'list', '--all', '--limit', '2', '--json'],
    routes: [page1, page2],
    requests: [
      { path: '/databases', query: { limit: '2' } },
      { path: '/databases', query: { limit: '2', cursor: 'cur_db_2' } },
    ],
    code: 0,
    stdoutJson: merged,
  },
  {
    name: '--all stops on a repeated cursor with a warning',
    argv: ['databases', 'list', '--all', '--json'],
    routes: [page1, { path: '/databases', body: page2Repeating, whenQuery: { cursor: 'cur_db_2' } }],
    requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
    code: 0,
    stdoutJson: merged,
    stderr: [/warning: .*cursor.*already/i],
  },
  {
    name: '--all stops when the first page hands back the --cursor it was given',
    argv: ['databases', 'list', '--all', '--cursor', 'cur_db_2'],
    routes: [{ path: '/databases', body: page2Repeating, whenQuery: { cursor: 'cur_db_2' } }],
    requests: [{ path: '/databases', query: { cursor: 'cur_db_2' } }],
    code: 0,
    stdout: ['db_analytics'],
    stderr: [/warning: .*cursor.*already/i],
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['databases', 'list', '--json'],
    routes: [{ path: '/databases', body: listWithExtra }],
    code: 0,
    stdoutJson: listWithExtra,
  },
  {
    name: 'contract: a bad provider in a list item names its index',
    argv: ['databases', 'list'],
    routes: [
      {
        path: '/databases',
        body: (() => {
          const b = fixtureCopy('databases-page1');
          b.databases[1].provider = 'mysql';
          return b;
        })(),
        requestId: 'req_list_provider',
      },
    ],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue('databases[1].provider'), 'req_list_provider'],
  },
  {
    name: 'an empty organization says where databases are created',
    argv: ['databases', 'list'],
    routes: [{ path: '/databases', body: { databases: [] } }],
    code: 0,
    stdoutEmpty: true,
    stderr: ['No protected databases', 'dashboard'],
  },
];

const getCases: Case[] = [
  {
    name: 'human key/value block with ages and the not-proof note',
    argv: ['databases', 'get', 'db_orders'],
    routes: [{ path: '/databases/db_orders', fixture: 'database-get' }],
    requests: [{ path: '/databases/db_orders' }],
    code: 0,
    stdout: [
      /id:\s+db_orders/,
      /name:\s+orders-prod/,
      /provider:\s+neon/,
      /state:\s+active/,
      /data residency:\s+eu/,
      /backup schedule:\s+0 \*\/6 \* \* \* \(UTC\)/,
      /retention:\s+30 days/,
      /last completed backup:\s+2026-11-21T06:00:12Z \(5h ago\)/,
      /created:\s+2026-03-02T09:15:00Z \(264d ago\)/,
    ],
    stdoutNot: [NOT_PROOF],
    stderr: [NOT_PROOF],
  },
  {
    name: 'human: no schedule and no completed backup yet',
    argv: ['databases', 'get', 'db_analytics'],
    routes: [{ path: '/databases/db_analytics', body: unscheduled }],
    code: 0,
    stdout: [/backup schedule:\s+none \(UTC\)/, /restore drills:\s+none \(UTC\)/, /last completed backup:\s+-$/m, /state:\s+paused/],
    stderr: [NOT_PROOF],
  },
  {
    name: 'ids are percent-encoded into the path',
    argv: ['databases', 'get', 'db orders/eu'],
    routes: [{ path: '/databases/:id', fixture: 'database-get' }],
    requests: [{ path: '/databases/db%20orders%2Feu' }],
    code: 0,
    stdout: ['orders-prod'],
  },
  {
    name: '--json: exactly the response body',
    argv: ['databases', 'get', 'db_orders', '--json'],
    routes: [{ path: '/databases/db_orders', fixture: 'database-get' }],
    code: 0,
    stdoutJson: fixture('database-get'),
    stdoutNot: [NOT_PROOF],
    stderrEmpty: true,
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['databases', 'get', 'db_orders', '--json'],
    routes: [{ path: '/databases/db_orders', body: getWithExtra }],
    code: 0,
    stdoutJson: getWithExtra,
  },
  {
    name: '404 is exit 5 with the request id',
    argv: ['databases', 'get', 'db_gone'],
    // The 404 is followed by one list read: no database is named "db_gone" either (cli-contract 4, v5).
    routes: [
      { path: '/databases/db_gone', fixture: 'error-404', status: 404 },
      { path: '/databases', fixture: 'databases-page2' },
    ],
    requests: [{ path: '/databases/db_gone' }, { path: '/databases' }],
    code: 5,
    stdoutEmpty: true,
    stderr: ['Protected database not found.', 'req_nf_1', 'HTTP 404'],
  },
  ...(
    [
      ['retentionPolicyDays 0', (d) => (d.retentionPolicyDays = 0), 'database.retentionPolicyDays'],
      ['retentionPolicyDays 366', (d) => (d.retentionPolicyDays = 366), 'database.retentionPolicyDays'],
      ['retentionPolicyDays 30.5', (d) => (d.retentionPolicyDays = 30.5), 'database.retentionPolicyDays'],
      ['provider mysql', (d) => (d.provider = 'mysql'), 'database.provider'],
      ['dataResidency mars', (d) => (d.dataResidency = 'mars'), 'database.dataResidency'],
      ['state unknown', (d) => (d.state = 'melting'), 'database.state'],
      ['createdAt missing', (d) => delete d.createdAt, 'database.createdAt'],
      ['createdAt not a timestamp', (d) => (d.createdAt = 'last Tuesday'), 'database.createdAt'],
      ['name empty', (d) => (d.name = ''), 'database.name'],
    ] as Array<[string, (d: Record<string, unknown>) => void, string]>
  ).map(([what, mutate, field]): Case => ({
    name: `contract: ${what} is exit 1 naming ${field}`,
    argv: ['databases', 'get', 'db_orders'],
    routes: [{ path: '/databases/db_orders', body: brokenGet(mutate), requestId: 'req_db_contract' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue(field), 'req_db_contract', 'does not match the API contract'],
  })),
];

const localCases: Case[] = [
  ['get with an empty id', ['databases', 'get', ''], /database id/],
  ['get with a blank id', ['databases', 'get', '   '], /database id/],
  ['get without an id', ['databases', 'get'], /missing required argument/],
  ['get with the id "."', ['databases', 'get', '.'], /database id/],
  ['get with the id ".."', ['databases', 'get', '..'], /database id/],
  ['list --limit 0', ['databases', 'list', '--limit', '0'], /--limit "0"/],
  ['list --limit abc', ['databases', 'list', '--limit', 'abc'], /--limit "abc"/],
  ['list --limit -3', ['databases', 'list', '--limit', '-3'], /--limit/],
  ['list --limit 1.5', ['databases', 'list', '--limit', '1.5'], /--limit "1.5"/],
  ['list --limit without a value', ['databases', 'list', '--limit'], /--limit/],
  ['list --cursor ""', ['databases', 'list', '--cursor', ''], /--cursor/],
  ['list with an unknown flag', ['databases', 'list', '--bogus'], /unknown option '--bogus'/],
  ['list with a stray argument', ['databases', 'list', 'db_orders'], /too many arguments|unknown/i],
].map(([what, argv, message]): Case => ({
  name: `${what as string}: exit 2, nothing sent`,
  argv: argv as string[],
  requests: [],
  code: 2,
  stdoutEmpty: true,
  stderr: [message as RegExp],
}));

describe('svc databases list', () => {
  it.each(listCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });

  it('--all --json is written as the pages arrive, the same text as one document held whole', async () => {
    const r = await runCase(server, configHome(), {
      name: 'streamed',
      argv: ['databases', 'list', '--all', '--json'],
      routes: [page1, page2],
      requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
      code: 0,
    });
    expect(r.stdout).toBe(`${JSON.stringify(merged, null, 2)}\n`);
  });

  it('--all --json output has no cursor key at all', async () => {
    const r = await runCase(server, configHome(), {
      name: 'no cursor key',
      argv: ['databases', 'list', '--all', '--json'],
      routes: [page1, page2],
      requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
      code: 0,
    });
    const body = JSON.parse(r.stdout);
    expect(Object.keys(body)).toEqual(['databases']);
    expect(body.databases.map((d: { id: string }) => d.id)).toEqual(['db_orders', 'db_billing', 'db_analytics']);
  });

  describe('contract: --all fails on a broken second page', () => {
    const brokenPage2: Route = {
      path: '/databases',
      body: (() => {
        const b = fixtureCopy('databases-page2');
        b.databases[0].retentionPolicyDays = 0;
        return b;
      })(),
      whenQuery: { cursor: 'cur_db_2' },
      requestId: 'req_page2_bad',
    };
    const fails = (argv: string[]): Case => ({
      name: argv.join(' '),
      argv,
      routes: [page1, brokenPage2],
      requests: [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }],
      code: 1,
      stderr: [fieldIssue('databases[0].retentionPolicyDays'), 'req_page2_bad'],
    });

    it('a table is held whole: exit 1 and nothing on stdout', async () => {
      await runCase(server, configHome(), { ...fails(['databases', 'list', '--all']), stdoutEmpty: true });
    });

    it('--json was written as the pages arrived: the first page stands unterminated, and the exit code is 1', async () => {
      const r = await runCase(server, configHome(), fails(['databases', 'list', '--all', '--json']));
      const whole = JSON.stringify({ databases: fixture('databases-page1').databases }, null, 2);
      expect(r.stdout).toBe(whole.slice(0, -'\n  ]\n}'.length));
      expect(() => JSON.parse(r.stdout)).toThrow(SyntaxError);
    });
  });
});

describe('svc databases get', () => {
  it.each(getCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('svc databases: local argument checks', () => {
  it.each(localCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

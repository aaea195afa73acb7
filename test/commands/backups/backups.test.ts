import { describe, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { fieldIssue, fixtureCopy, runCase, useServer, type Case } from '../harness.js';

const { server, configHome } = useServer();

const NOT_PROOF = 'A completed backup is not proof of recoverability';

const listWithCursor = fixtureCopy('backups-list');
listWithCursor.nextCursor = 'cur_bj_2';

const listWithExtra = fixtureCopy('backups-list');
listWithExtra.backupJobs[0].durationMs = 98000;
listWithExtra.highWatermark = 'bj_0009';

const detailWithExtra = fixtureCopy('backup-get-completed');
detailWithExtra.artifact.storageClass = 'STANDARD_IA';
detailWithExtra.retentionUntil = '2026-12-21T06:01:40Z';

function brokenDetail(mutate: (b: Record<string, any>) => void): unknown {
  const body = fixtureCopy('backup-get-completed');
  mutate(body);
  return body;
}

function brokenList(mutate: (b: Record<string, any>) => void): unknown {
  const body = fixtureCopy('backups-list');
  mutate(body);
  return body;
}

const listCases: Case[] = [
  {
    name: 'human table with states, triggers, ages and the not-proof note',
    argv: ['backups', 'list', 'db_orders'],
    routes: [{ path: '/databases/db_orders/backups', fixture: 'backups-list' }],
    requests: [{ path: '/databases/db_orders/backups' }],
    code: 0,
    stdout: [
      /ID\s+STATE\s+TRIGGER\s+ATTEMPT\s+ENQUEUED\s+CLAIMED/,
      /bj_0007\s+completed\s+scheduled\s+0\s+6h ago\s+5h ago/,
      /bj_0008\s+running\s+adhoc\s+0\s+10m ago\s+9m ago/,
      /bj_0009\s+queued\s+adhoc\s+0\s+1m ago\s+-/,
    ],
    // Data only on stdout: the caveat goes to stderr (cli-contract 4), so `| wc -l` counts jobs.
    stdoutNot: [NOT_PROOF],
    stderr: [NOT_PROOF],
  },
  {
    name: '--limit and --cursor go in the query; a next cursor gives the hint',
    argv: ['backups', 'list', 'db_orders', '--limit', '3', '--cursor', 'cur_bj_1'],
    routes: [{ path: '/databases/db_orders/backups', body: listWithCursor }],
    requests: [{ path: '/databases/db_orders/backups', query: { limit: '3', cursor: 'cur_bj_1' } }],
    code: 0,
    stdout: ['bj_0007'],
    stderr: ['More results: add --cursor cur_bj_2'],
  },
  {
    name: '--quiet silences the hint',
    argv: ['backups', 'list', 'db_orders', '--quiet'],
    routes: [{ path: '/databases/db_orders/backups', body: listWithCursor }],
    code: 0,
    stdout: ['bj_0007'],
    stderrEmpty: true,
  },
  {
    name: '--all merges pages',
    argv: ['backups', 'list', 'db_orders', '--all', '--json'],
    routes: [
      { path: '/databases/db_orders/backups', body: listWithCursor, whenQuery: { cursor: null } },
      { path: '/databases/db_orders/backups', fixture: 'backups-list-empty', whenQuery: { cursor: 'cur_bj_2' } },
    ],
    requests: [{ path: '/databases/db_orders/backups' }, { path: '/databases/db_orders/backups', query: { cursor: 'cur_bj_2' } }],
    code: 0,
    stdoutJson: fixture('backups-list'),
  },
  {
    name: 'no jobs: says how to start one',
    argv: ['backups', 'list', 'db_orders'],
    routes: [{ path: '/databases/db_orders/backups', fixture: 'backups-list-empty' }],
    code: 0,
    stdoutEmpty: true,
    stderr: ['No backup jobs for db_orders', 'svc backups trigger db_orders'],
  },
  {
    name: '--json: exactly the response body',
    argv: ['backups', 'list', 'db_orders', '--json'],
    routes: [{ path: '/databases/db_orders/backups', fixture: 'backups-list' }],
    code: 0,
    stdoutJson: fixture('backups-list'),
    stdoutNot: [NOT_PROOF],
    stderrEmpty: true,
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['backups', 'list', 'db_orders', '--json'],
    routes: [{ path: '/databases/db_orders/backups', body: listWithExtra }],
    code: 0,
    stdoutJson: listWithExtra,
  },
  {
    name: '404 for a missing database is exit 5',
    argv: ['backups', 'list', 'db_gone'],
    // The 404 is followed by one list read: no database is named "db_gone" either (cli-contract 4, v5).
    routes: [
      { path: '/databases/db_gone/backups', fixture: 'error-404', status: 404 },
      { path: '/databases', fixture: 'databases-page2' },
    ],
    code: 5,
    stdoutEmpty: true,
    stderr: ['Protected database not found.', 'req_nf_1'],
  },
  {
    name: 'contract: claimedAt missing from a list item (it must be present, null until claimed)',
    argv: ['backups', 'list', 'db_orders'],
    routes: [{ path: '/databases/db_orders/backups', body: brokenList((b) => delete b.backupJobs[2].claimedAt), requestId: 'req_bl_1' }],
    code: 1,
    stderr: [fieldIssue('backupJobs[2].claimedAt'), 'req_bl_1'],
  },
  {
    name: 'contract: a negative attempt',
    argv: ['backups', 'list', 'db_orders'],
    routes: [{ path: '/databases/db_orders/backups', body: brokenList((b) => (b.backupJobs[0].attempt = -1)), requestId: 'req_bl_2' }],
    code: 1,
    stderr: [fieldIssue('backupJobs[0].attempt'), 'req_bl_2'],
  },
  {
    name: 'contract: a trigger outside adhoc/scheduled',
    argv: ['backups', 'list', 'db_orders', '--json'],
    routes: [{ path: '/databases/db_orders/backups', body: brokenList((b) => (b.backupJobs[1].trigger = 'manual')), requestId: 'req_bl_3' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue('backupJobs[1].trigger'), 'req_bl_3'],
  },
];

const getCases: Case[] = [
  {
    name: 'completed: fields, artifact, ages and the not-proof note',
    argv: ['backups', 'get', 'bj_0007'],
    routes: [{ path: '/backups/bj_0007', fixture: 'backup-get-completed' }],
    requests: [{ path: '/backups/bj_0007' }],
    code: 0,
    stdout: [
      /id:\s+bj_0007/,
      /database:\s+db_orders/,
      /destination:\s+dst_eu_s3/,
      /state:\s+completed/,
      /trigger:\s+scheduled/,
      /enqueued:\s+2026-11-21T06:00:00Z \(6h ago\)/,
      /completed:\s+2026-11-21T06:01:40Z \(5h ago\)/,
      /Artifact/,
      /key:\s+org_acme\/db_orders\/bj_0007\/dump\.pgcustom/,
      /size:\s+92\.9 KiB \(95129 bytes\)/,
      /sha-256:\s+431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55/,
    ],
    stdoutNot: [NOT_PROOF],
    stderr: [NOT_PROOF],
  },
  {
    name: 'failed: error kind and message, no artifact, no proof caveat (nothing completed)',
    argv: ['backups', 'get', 'bj_0006'],
    routes: [{ path: '/backups/bj_0006', fixture: 'backup-get-failed' }],
    code: 0,
    stdout: [
      /state:\s+failed_terminal/,
      /attempt:\s+2/,
      /error:\s+source_unreachable: The source database refused the connection\./,
      /enqueued:\s+2026-11-20T10:00:00Z \(1d ago\)/,
    ],
    stdoutNot: ['Artifact', /completed:/, NOT_PROOF],
    stderrEmpty: true,
  },
  {
    name: '--json: exactly the response body',
    argv: ['backups', 'get', 'bj_0007', '--json'],
    routes: [{ path: '/backups/bj_0007', fixture: 'backup-get-completed' }],
    code: 0,
    stdoutJson: fixture('backup-get-completed'),
    stderrEmpty: true,
  },
  {
    name: '--json keeps unknown extra fields, nested ones too',
    argv: ['backups', 'get', 'bj_0007', '--json'],
    routes: [{ path: '/backups/bj_0007', body: detailWithExtra }],
    code: 0,
    stdoutJson: detailWithExtra,
  },
  {
    name: '404 is exit 5',
    argv: ['backups', 'get', 'bj_nope'],
    routes: [{ path: '/backups/bj_nope', fixture: 'error-404', status: 404 }],
    code: 5,
    stderr: ['req_nf_1', 'HTTP 404'],
  },
  ...(
    [
      ['upper-case checksumSha256', (b) => (b.artifact.checksumSha256 = b.artifact.checksumSha256.toUpperCase()), 'artifact.checksumSha256'],
      ['short checksumSha256', (b) => (b.artifact.checksumSha256 = 'abc123'), 'artifact.checksumSha256'],
      ['negative sizeBytes', (b) => (b.artifact.sizeBytes = -1), 'artifact.sizeBytes'],
      ['artifactKey missing', (b) => delete b.artifact.artifactKey, 'artifact.artifactKey'],
      ['unknown state', (b) => (b.state = 'exploded'), 'state'],
      ['organizationId missing', (b) => delete b.organizationId, 'organizationId'],
      ['completedAt not a timestamp', (b) => (b.completedAt = '21/11/2026'), 'completedAt'],
    ] as Array<[string, (b: Record<string, any>) => void, string]>
  ).map(([what, mutate, field]): Case => ({
    name: `contract: ${what} is exit 1 naming ${field}`,
    argv: ['backups', 'get', 'bj_0007'],
    routes: [{ path: '/backups/bj_0007', body: brokenDetail(mutate), requestId: 'req_bj_contract' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue(field), 'req_bj_contract'],
  })),
];

const localCases: Case[] = (
  [
    ['list with an empty database id', ['backups', 'list', '']],
    ['list without a database id', ['backups', 'list']],
    ['list --limit 0', ['backups', 'list', 'db_orders', '--limit', '0']],
    ['list --limit abc', ['backups', 'list', 'db_orders', '--limit', 'abc']],
    ['list --cursor ""', ['backups', 'list', 'db_orders', '--cursor', '']],
    ['get with an empty id', ['backups', 'get', '']],
    ['get with a blank id', ['backups', 'get', ' ']],
    ['get with an unknown flag', ['backups', 'get', 'bj_0007', '--watch']],
  ] as Array<[string, string[]]>
).map(([what, argv]) => ({ name: `${what}: exit 2, nothing sent`, argv, requests: [], code: 2, stdoutEmpty: true, stderr: [/^error: /] }));

describe('svc backups list', () => {
  it.each(listCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('svc backups get', () => {
  it.each(getCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('svc backups: local argument checks', () => {
  it.each(localCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

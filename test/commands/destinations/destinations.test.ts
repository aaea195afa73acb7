import { describe, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { fieldIssue, fixtureCopy, runCase, useServer, type Case } from '../harness.js';

const { server, configHome } = useServer();

const listWithCursor = fixtureCopy('destinations-list');
listWithCursor.nextCursor = 'cur_dst_2';

const listWithExtra = fixtureCopy('destinations-list');
listWithExtra.destinations[1].endpoint = 'https://s3.us-west-004.backblazeb2.com';

const getWithExtra = fixtureCopy('destination-get');
getWithExtra.destination.encryption = { sse: 'aws:kms' };

function brokenGet(mutate: (d: Record<string, unknown>) => void): unknown {
  const body = fixtureCopy('destination-get');
  mutate(body.destination);
  return body;
}

const cases: Case[] = [
  {
    name: 'list: human table with kind, bucket, state, retention floor and last verified age',
    argv: ['destinations', 'list'],
    routes: [{ path: '/destinations', fixture: 'destinations-list' }],
    requests: [{ path: '/destinations' }],
    code: 0,
    stdout: [
      /ID\s+KIND\s+REGION\s+BUCKET\s+STATE\s+RETENTION FLOOR\s+LAST VERIFIED/,
      /dst_eu_s3\s+aws_s3\s+eu-central-1\s+acme-backups-eu\s+verified\s+30d\s+14h ago/,
      /dst_b2\s+backblaze_b2\s+us-west-004\s+-\s+unverified\s+14d\s+never/,
    ],
    stderrEmpty: true,
  },
  {
    name: 'list: --limit is sent, and a next cursor gives the More results hint',
    argv: ['destinations', 'list', '--limit', '2'],
    routes: [{ path: '/destinations', body: listWithCursor }],
    requests: [{ path: '/destinations', query: { limit: '2' } }],
    code: 0,
    stdout: ['dst_eu_s3', 'dst_b2'],
    stderr: ['More results: add --cursor cur_dst_2'],
  },
  {
    name: 'list: --quiet silences the hint',
    argv: ['--quiet', 'destinations', 'list'],
    routes: [{ path: '/destinations', body: listWithCursor }],
    code: 0,
    stdout: ['dst_eu_s3'],
    stderrEmpty: true,
  },
  {
    name: 'list: --all follows the cursor',
    argv: ['destinations', 'list', '--all', '--json'],
    routes: [
      { path: '/destinations', body: listWithCursor, whenQuery: { cursor: null } },
      { path: '/destinations', body: { destinations: [] }, whenQuery: { cursor: 'cur_dst_2' } },
    ],
    requests: [{ path: '/destinations' }, { path: '/destinations', query: { cursor: 'cur_dst_2' } }],
    code: 0,
    stdoutJson: fixture('destinations-list'),
  },
  {
    name: 'list --json: exactly the response body',
    argv: ['destinations', 'list', '--json'],
    routes: [{ path: '/destinations', fixture: 'destinations-list' }],
    code: 0,
    stdoutJson: fixture('destinations-list'),
    stderrEmpty: true,
  },
  {
    name: 'list --json keeps unknown extra fields',
    argv: ['destinations', 'list', '--json'],
    routes: [{ path: '/destinations', body: listWithExtra }],
    code: 0,
    stdoutJson: listWithExtra,
  },
  {
    name: 'list: empty',
    argv: ['destinations', 'list'],
    routes: [{ path: '/destinations', body: { destinations: [] } }],
    code: 0,
    stdoutEmpty: true,
    stderr: ['No backup destinations'],
  },
  {
    name: 'get: human key/value block',
    argv: ['destinations', 'get', 'dst_eu_s3'],
    routes: [{ path: '/destinations/dst_eu_s3', fixture: 'destination-get' }],
    requests: [{ path: '/destinations/dst_eu_s3' }],
    code: 0,
    stdout: [
      /id:\s+dst_eu_s3/,
      /kind:\s+aws_s3/,
      /region:\s+eu-central-1/,
      /bucket:\s+acme-backups-eu/,
      /bucket ARN:\s+arn:aws:s3:::acme-backups-eu/,
      /state:\s+verified/,
      /retention floor:\s+30 days/,
      /last verified:\s+2026-11-20T22:00:00Z \(14h ago\)/,
      /created:\s+2026-03-02T09:00:00Z \(264d ago\)/,
    ],
    stderrEmpty: true,
  },
  {
    name: 'get: never verified, no bucket fields',
    argv: ['destinations', 'get', 'dst_b2'],
    routes: [{ path: '/destinations/dst_b2', body: { destination: fixture('destinations-list').destinations[1] } }],
    code: 0,
    stdout: [/last verified:\s+never/, /state:\s+unverified/],
    stdoutNot: ['bucket'],
  },
  {
    name: 'get --json: exactly the response body',
    argv: ['destinations', 'get', 'dst_eu_s3', '--json'],
    routes: [{ path: '/destinations/dst_eu_s3', fixture: 'destination-get' }],
    code: 0,
    stdoutJson: fixture('destination-get'),
  },
  {
    name: 'get --json keeps unknown extra fields',
    argv: ['destinations', 'get', 'dst_eu_s3', '--json'],
    routes: [{ path: '/destinations/dst_eu_s3', body: getWithExtra }],
    code: 0,
    stdoutJson: getWithExtra,
  },
  {
    name: 'get: 404 is exit 5',
    argv: ['destinations', 'get', 'dst_nope'],
    routes: [{ path: '/destinations/dst_nope', fixture: 'error-404', status: 404 }],
    code: 5,
    stdoutEmpty: true,
    stderr: ['req_nf_1'],
  },
  {
    name: 'get: 403 names the required scope, next action and request id',
    argv: ['destinations', 'get', 'dst_eu_s3'],
    routes: [{ path: '/destinations/dst_eu_s3', fixture: 'error-403', status: 403 }],
    code: 4,
    stdoutEmpty: true,
    stderr: [/required scope:\s+evidence:read/, /next action:\s+Issue a token/, 'req_forbidden_1'],
  },
  ...(
    [
      ['kind ftp', (d) => (d.kind = 'ftp'), 'destination.kind'],
      ['retentionFloorDays 0', (d) => (d.retentionFloorDays = 0), 'destination.retentionFloorDays'],
      ['retentionFloorDays 400', (d) => (d.retentionFloorDays = 400), 'destination.retentionFloorDays'],
      ['state unknown', (d) => (d.state = 'exploded'), 'destination.state'],
      ['region missing', (d) => delete d.region, 'destination.region'],
      ['lastVerifiedAt not a timestamp', (d) => (d.lastVerifiedAt = 'yesterday'), 'destination.lastVerifiedAt'],
    ] as Array<[string, (d: Record<string, unknown>) => void, string]>
  ).map(([what, mutate, field]): Case => ({
    name: `get: contract: ${what} is exit 1 naming ${field}`,
    argv: ['destinations', 'get', 'dst_eu_s3'],
    routes: [{ path: '/destinations/dst_eu_s3', body: brokenGet(mutate), requestId: 'req_dst_contract' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue(field), 'req_dst_contract'],
  })),
  ...(
    [
      ['get with an empty id', ['destinations', 'get', '']],
      ['get without an id', ['destinations', 'get']],
      ['list --limit 0', ['destinations', 'list', '--limit', '0']],
      ['list --limit abc', ['destinations', 'list', '--limit', 'abc']],
      ['list with an unknown flag', ['destinations', 'list', '--region', 'eu']],
    ] as Array<[string, string[]]>
  ).map(([what, argv]): Case => ({
    name: `${what}: exit 2, nothing sent`,
    argv,
    requests: [],
    code: 2,
    stdoutEmpty: true,
    stderr: [/^error: /],
  })),
];

describe('svc destinations', () => {
  it.each(cases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

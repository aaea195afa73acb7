import { describe, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { fieldIssue, fixtureCopy, runCase, useServer, type Case } from '../harness.js';

const { server, configHome } = useServer();

const SEMANTICS_TITLE = 'What the proof terms mean (from the service)';
const COMPLETED_MEANS = /completed backup:\s+The backup job finished and its artifact was stored; this alone does not prove the data can be restored\./;
const VERIFIED_MEANS = /verified restore:\s+The artifact was restored into a scratch database and checked\./;
const PROVEN_MEANS = /proven recoverability:\s+A verified restore exists within the recovery objective for this database\./;

const listWithCursor = fixtureCopy('evidence-list');
listWithCursor.nextCursor = 'cur_ev_2';

const listWithExtra = fixtureCopy('evidence-list');
listWithExtra.evidence[0].auditEvents[0].actor = 'worker-3';
listWithExtra.proofSemantics.drillSchedule = 'Weekly restore drills run on Sundays.';

const getWithExtra = fixtureCopy('evidence-get');
getWithExtra.evidence.integrityVerification.durationMs = 4100;
getWithExtra.exportable = false;

function brokenGet(mutate: (b: Record<string, any>) => void): unknown {
  const body = fixtureCopy('evidence-get');
  mutate(body);
  return body;
}

const listCases: Case[] = [
  {
    name: 'human table with integrity results and the proof semantics',
    argv: ['evidence', 'list'],
    routes: [{ path: '/evidence', fixture: 'evidence-list' }],
    requests: [{ path: '/evidence' }],
    code: 0,
    stdout: [
      /BACKUP JOB\s+SIZE\s+SHA-256\s+RECORDED\s+INTEGRITY CHECK\s+AUDIT EVENTS/,
      // Whole checksums when stdout is not a terminal: `| grep <sha256>` finds them.
      /bj_0007\s+92\.9 KiB\s+431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55\s+5h ago\s+passed\s+2/,
      /bj_0005\s+1\.0 MiB\s+0{64}\s+2d ago\s+not verified\s+1/,
    ],
    // The glossary is for the reader: on stderr, off the data.
    stdoutNot: [SEMANTICS_TITLE, '…'],
    stderr: [SEMANTICS_TITLE, COMPLETED_MEANS, VERIFIED_MEANS, PROVEN_MEANS],
  },
  {
    name: '--database, --limit and --cursor go in the query',
    argv: ['evidence', 'list', '--database', 'db_orders', '--limit', '1', '--cursor', 'cur_ev_1'],
    routes: [{ path: '/evidence', body: listWithCursor }],
    requests: [{ path: '/evidence', query: { databaseId: 'db_orders', limit: '1', cursor: 'cur_ev_1' } }],
    code: 0,
    stdout: ['bj_0007'],
    stderr: ['More results: add --cursor cur_ev_2'],
  },
  {
    name: '--quiet silences the hint',
    argv: ['evidence', 'list', '--quiet'],
    routes: [{ path: '/evidence', body: listWithCursor }],
    code: 0,
    stderrEmpty: true,
  },
  {
    name: '--all follows the cursor and keeps --database and proofSemantics',
    argv: ['evidence', 'list', '--database', 'db_orders', '--all', '--json'],
    routes: [
      { path: '/evidence', body: listWithCursor, whenQuery: { cursor: null } },
      {
        path: '/evidence',
        body: { evidence: [], proofSemantics: fixture('evidence-list').proofSemantics, nextCursor: null },
        whenQuery: { cursor: 'cur_ev_2' },
      },
    ],
    requests: [
      { path: '/evidence', query: { databaseId: 'db_orders' } },
      { path: '/evidence', query: { databaseId: 'db_orders', cursor: 'cur_ev_2' } },
    ],
    code: 0,
    stdoutJson: fixture('evidence-list'),
  },
  {
    name: 'empty page for an unknown database (non-enumerating) says so',
    argv: ['evidence', 'list', '--database', 'db_other_org'],
    routes: [{ path: '/evidence', body: { evidence: [], proofSemantics: fixture('evidence-list').proofSemantics } }],
    requests: [{ path: '/evidence', query: { databaseId: 'db_other_org' } }],
    code: 0,
    stdoutEmpty: true,
    stderr: ['No evidence for db_other_org', SEMANTICS_TITLE],
  },
  {
    name: '--json: exactly the response body',
    argv: ['evidence', 'list', '--json'],
    routes: [{ path: '/evidence', fixture: 'evidence-list' }],
    code: 0,
    stdoutJson: fixture('evidence-list'),
    stdoutNot: [SEMANTICS_TITLE],
    stderrEmpty: true,
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['evidence', 'list', '--json'],
    routes: [{ path: '/evidence', body: listWithExtra }],
    code: 0,
    stdoutJson: listWithExtra,
  },
  {
    name: '403 names evidence:read, the next action and the request id',
    argv: ['evidence', 'list'],
    routes: [{ path: '/evidence', fixture: 'error-403', status: 403 }],
    code: 4,
    stdoutEmpty: true,
    stderr: [/required scope:\s+evidence:read/, /next action:\s+Issue a token with evidence:read in Settings > API tokens\./, 'req_forbidden_1'],
  },
  {
    name: 'contract: an upper-case checksum in a list item',
    argv: ['evidence', 'list'],
    routes: [
      {
        path: '/evidence',
        body: (() => {
          const b = fixtureCopy('evidence-list');
          b.evidence[1].checksumSha256 = 'ABCDEF'.repeat(10) + 'ABCD';
          return b;
        })(),
        requestId: 'req_ev_list_bad',
      },
    ],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue('evidence[1].checksumSha256'), 'req_ev_list_bad'],
  },
  {
    name: 'contract: proofSemantics missing',
    argv: ['evidence', 'list'],
    routes: [
      {
        path: '/evidence',
        body: (() => {
          const b = fixtureCopy('evidence-list');
          delete b.proofSemantics;
          return b;
        })(),
        requestId: 'req_ev_nosem',
      },
    ],
    code: 1,
    stderr: [fieldIssue('proofSemantics'), 'req_ev_nosem'],
  },
];

const getCases: Case[] = [
  {
    name: 'human: artifact, integrity verification, audit events and proof semantics',
    argv: ['evidence', 'get', 'bj_0007'],
    routes: [{ path: '/evidence/bj_0007', fixture: 'evidence-get' }],
    requests: [{ path: '/evidence/bj_0007' }],
    code: 0,
    stdout: [
      /backup job:\s+bj_0007/,
      /artifact:\s+org_acme\/db_orders\/bj_0007\/dump\.pgcustom/,
      /size:\s+92\.9 KiB \(95129 bytes\)/,
      /sha-256:\s+431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55/,
      /recorded:\s+2026-11-21T06:01:40Z \(5h ago\)/,
      /Integrity verification\n\s+result:\s+passed\n\s+verified:\s+2026-11-21T06:05:00Z \(5h ago\)/,
      /backup\.completed\s+2026-11-21T06:01:40Z \(5h ago\)/,
      /integrity\.verified\s+2026-11-21T06:05:00Z \(5h ago\)/,
    ],
    stdoutNot: [SEMANTICS_TITLE],
    stderr: [SEMANTICS_TITLE, COMPLETED_MEANS, VERIFIED_MEANS, PROVEN_MEANS],
  },
  {
    name: 'human: not verified, no audit events',
    argv: ['evidence', 'get', 'bj_0005'],
    routes: [{ path: '/evidence/bj_0005', fixture: 'evidence-get-unverified' }],
    code: 0,
    stdout: [/Integrity verification\n\s+result:\s+not verified/, /size:\s+1\.0 MiB \(1048576 bytes\)/],
    stderr: ['No audit events.', COMPLETED_MEANS],
    stdoutNot: [/result:\s+passed/],
  },
  {
    name: 'human: a failed verification shows its message',
    argv: ['evidence', 'get', 'bj_0007'],
    routes: [
      {
        path: '/evidence/bj_0007',
        body: brokenGet((b) => {
          b.evidence.integrityVerification.result = 'failed';
          b.evidence.integrityVerification.message = 'Checksum mismatch on re-read.';
        }),
      },
    ],
    code: 0,
    stdout: [/result:\s+failed/, /message:\s+Checksum mismatch on re-read\./],
  },
  {
    name: '--json: exactly the response body',
    argv: ['evidence', 'get', 'bj_0007', '--json'],
    routes: [{ path: '/evidence/bj_0007', fixture: 'evidence-get' }],
    code: 0,
    stdoutJson: fixture('evidence-get'),
    stderrEmpty: true,
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['evidence', 'get', 'bj_0007', '--json'],
    routes: [{ path: '/evidence/bj_0007', body: getWithExtra }],
    code: 0,
    stdoutJson: getWithExtra,
  },
  {
    name: '404 is exit 5',
    argv: ['evidence', 'get', 'bj_nope'],
    routes: [{ path: '/evidence/bj_nope', fixture: 'error-404', status: 404 }],
    code: 5,
    stderr: ['req_nf_1'],
  },
  ...(
    [
      ['upper-case checksumSha256', (b) => (b.evidence.checksumSha256 = b.evidence.checksumSha256.toUpperCase()), 'evidence.checksumSha256'],
      ['integrity result unknown', (b) => (b.evidence.integrityVerification.result = 'maybe'), 'evidence.integrityVerification.result'],
      ['integrityVerification missing (must be null)', (b) => delete b.evidence.integrityVerification, 'evidence.integrityVerification'],
      ['audit event without at', (b) => delete b.evidence.auditEvents[1].at, 'evidence.auditEvents[1].at'],
      ['auditEvents not an array', (b) => (b.evidence.auditEvents = {}), 'evidence.auditEvents'],
      ['proofSemantics.verifiedRestore missing', (b) => delete b.proofSemantics.verifiedRestore, 'proofSemantics.verifiedRestore'],
      ['sizeBytes a string', (b) => (b.evidence.sizeBytes = '48213'), 'evidence.sizeBytes'],
    ] as Array<[string, (b: Record<string, any>) => void, string]>
  ).map(([what, mutate, field]): Case => ({
    name: `contract: ${what} is exit 1 naming ${field}`,
    argv: ['evidence', 'get', 'bj_0007'],
    routes: [{ path: '/evidence/bj_0007', body: brokenGet(mutate), requestId: 'req_ev_contract' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue(field), 'req_ev_contract'],
  })),
];

const localCases: Case[] = (
  [
    ['list --database ""', ['evidence', 'list', '--database', '']],
    ['list --limit 0', ['evidence', 'list', '--limit', '0']],
    ['list --limit abc', ['evidence', 'list', '--limit', 'abc']],
    ['list with an unknown flag', ['evidence', 'list', '--db', 'db_orders']],
    ['get with an empty id', ['evidence', 'get', '']],
    ['get without an id', ['evidence', 'get']],
  ] as Array<[string, string[]]>
).map(([what, argv]) => ({ name: `${what}: exit 2, nothing sent`, argv, requests: [], code: 2, stdoutEmpty: true, stderr: [/^error: /] }));

describe('svc evidence list', () => {
  it.each(listCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('svc evidence get', () => {
  it.each(getCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('svc evidence: local argument checks', () => {
  it.each(localCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

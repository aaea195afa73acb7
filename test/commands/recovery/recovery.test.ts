import { describe, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { fieldIssue, fixtureCopy, runCase, useServer, type Case } from '../harness.js';

const { server, configHome } = useServer();

const SUMMARY_PATH = '/databases/db_orders/recovery/summary';
const CANDIDATE_PATH = '/databases/db_orders/recovery/candidate';
const PROOF_PATH = '/recovery/windows/rw_0003/proof';
const CANDIDATE_REQUEST = { path: CANDIDATE_PATH, query: { incidentTime: '2026-11-21T12:00:00Z' } };

const summaryWithExtra = fixtureCopy('recovery-summary');
summaryWithExtra.latest.walArchiveLagSeconds = 12;
summaryWithExtra.generatedAt = '2026-11-21T11:59:00Z';

const proofWithExtra = fixtureCopy('recovery-proof');
proofWithExtra.proof.cursorChain.firstCursor = '0/30000000';

function mutated(name: string, mutate: (b: Record<string, any>) => void): unknown {
  const body = fixtureCopy(name);
  mutate(body);
  return body;
}

const summaryCases: Case[] = [
  {
    name: 'human: verdict, then the latest window with proof status next to custody',
    argv: ['recovery', 'summary', 'db_orders'],
    routes: [{ path: SUMMARY_PATH, fixture: 'recovery-summary' }],
    requests: [{ path: SUMMARY_PATH }],
    code: 0,
    stdout: [
      /summary:\s+A verified recovery window exists\./,
      /recommended action:\s+No action needed\./,
      /Latest recovery window\n\s+window:\s+rw_0003\n\s+proof status:\s+verified\n\s+custody:\s+complete/,
      /snapshot time:\s+2026-11-21T06:00:12Z \(5h ago\)/,
      /validated through:\s+2026-11-21T11:45:00Z \(15m ago\)/,
      /target cursor:\s+0\/3A000060/,
      /gap before incident:\s+-$/m,
      /segments:\s+12/,
      /restore available:\s+yes/,
      /export available:\s+no/,
    ],
    // The next command in full, on stderr: restore the window, no id to copy.
    stderr: [
      // What it does, then the command alone on its line (pasted, it runs), then the rehearsal.
      /^Next: restore window rw_0003's baseline backup into a new database; add --dry-run to check it first:\n {2}svc restore create --window rw_0003 --target postgresql:\/\/USER@HOST:5432\/NEW_DATABASE\nTo rehearse without touching anything:\n {2}svc restore drill db_orders$/m,
    ],
  },
  {
    name: 'human: no window recorded yet, with the reason',
    argv: ['recovery', 'summary', 'db_analytics'],
    routes: [{ path: '/databases/db_analytics/recovery/summary', fixture: 'recovery-summary-none' }],
    requests: [{ path: '/databases/db_analytics/recovery/summary' }],
    code: 0,
    stdout: [
      /summary:\s+Recoverability is not proven\./,
      /reason:\s+No recovery window has been validated for this database yet\./,
      /recommended action:\s+Enable restore drills in the dashboard\./,
      'No recovery window recorded yet.',
    ],
    stdoutNot: ['Latest recovery window', /proof status:\s+verified/],
  },
  {
    name: '--json: exactly the response body',
    argv: ['recovery', 'summary', 'db_orders', '--json'],
    routes: [{ path: SUMMARY_PATH, fixture: 'recovery-summary' }],
    code: 0,
    stdoutJson: fixture('recovery-summary'),
    stderrEmpty: true,
  },
  {
    name: '--json: latest null is kept as null',
    argv: ['recovery', 'summary', 'db_analytics', '--json'],
    routes: [{ path: '/databases/db_analytics/recovery/summary', fixture: 'recovery-summary-none' }],
    code: 0,
    stdoutJson: fixture('recovery-summary-none'),
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['recovery', 'summary', 'db_orders', '--json'],
    routes: [{ path: SUMMARY_PATH, body: summaryWithExtra }],
    code: 0,
    stdoutJson: summaryWithExtra,
  },
  {
    name: '404 is exit 5',
    argv: ['recovery', 'summary', 'db_orders'],
    // The 404 is followed by one list read: no other database is named "db_orders" (cli-contract 4, v5).
    routes: [
      { path: SUMMARY_PATH, fixture: 'error-404', status: 404 },
      { path: '/databases', fixture: 'databases-page2' },
    ],
    code: 5,
    stderr: ['Protected database not found.', 'req_nf_1'],
  },
  ...(
    [
      ['upper-case schemaDigest', (b) => (b.latest.schemaDigest = b.latest.schemaDigest.toUpperCase()), 'latest.schemaDigest'],
      ['unknown proofStatus', (b) => (b.latest.proofStatus = 'probably'), 'latest.proofStatus'],
      ['unknown custodyStatus', (b) => (b.latest.custodyStatus = 'partial'), 'latest.custodyStatus'],
      ['negative gap', (b) => (b.latest.gapBeforeIncidentSeconds = -5), 'latest.gapBeforeIncidentSeconds'],
      ['empty reason (must be null or non-empty)', (b) => (b.latest.reason = ''), 'latest.reason'],
      ['latest missing (must be null)', (b) => delete b.latest, 'latest'],
      ['restoreAvailable a string', (b) => (b.latest.restoreAvailable = 'yes'), 'latest.restoreAvailable'],
    ] as Array<[string, (b: Record<string, any>) => void, string]>
  ).map(([what, mutate, field]): Case => ({
    name: `contract: ${what} is exit 1 naming ${field}`,
    argv: ['recovery', 'summary', 'db_orders'],
    routes: [{ path: SUMMARY_PATH, body: mutated('recovery-summary', mutate), requestId: 'req_rs_contract' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue(field), 'req_rs_contract'],
  })),
];

const candidateCases: Case[] = [
  {
    name: 'human: incident time, verdict and the recommended candidate; incidentTime in the query',
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T12:00:00Z'],
    routes: [{ path: CANDIDATE_PATH, fixture: 'recovery-candidate' }],
    requests: [CANDIDATE_REQUEST],
    code: 0,
    stdout: [
      /incident time:\s+2026-11-21T12:00:00Z \(just now\)/,
      /summary:\s+The closest restore-ready candidate is 15 minutes before the incident\./,
      /recommended action:\s+Restore window rw_0003 into a new database and compare\./,
      /Recommended candidate\n\s+window:\s+rw_0003\n\s+proof status:\s+verified\n\s+custody:\s+complete/,
      /gap before incident:\s+900s/,
      /schema digest:\s+4d2f1c0b9a8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4/,
    ],
    stderr: [
      /^ {2}svc restore create --window rw_0003 --target postgresql:\/\/USER@HOST:5432\/NEW_DATABASE$/m,
      // One recommendation: the window's own "No action needed." is context on stderr, not a second one.
      /^The service's summary of window rw_0003 says "No action needed\.": that is the window's own state \(svc recovery summary db_orders\), not a step for this incident\.$/m,
    ],
    stdoutNot: [/No action needed/],
  },
  {
    name: 'human: with SVC_TARGET_DSN set, the next command runs as printed',
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T12:00:00Z'],
    env: { SVC_TARGET_DSN: 'postgresql://app@db.internal/orders_incident' },
    routes: [{ path: CANDIDATE_PATH, fixture: 'recovery-candidate' }],
    requests: [CANDIDATE_REQUEST],
    code: 0,
    stderr: [/^ {2}svc restore create --window rw_0003$/m, /\(the target from SVC_TARGET_DSN\)/],
  },
  {
    name: 'an offset incident time is passed through unchanged; no candidate is said plainly',
    argv: ['recovery', 'candidate', 'db_analytics', '--incident-time', '2026-11-20T14:30:00+01:00'],
    routes: [{ path: '/databases/db_analytics/recovery/candidate', fixture: 'recovery-candidate-none' }],
    requests: [{ path: '/databases/db_analytics/recovery/candidate', query: { incidentTime: '2026-11-20T14:30:00+01:00' } }],
    code: 0,
    stdout: [
      /incident time:\s+2026-11-20T14:30:00\+01:00 \(22h ago\)/,
      /reason:\s+No restore-ready snapshot precedes the incident time\./,
      'No restore-ready candidate before the incident time.',
    ],
    stdoutNot: ['Recommended candidate'],
  },
  {
    name: 'fractional seconds are accepted',
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T11:59:59.250Z', '--json'],
    routes: [{ path: CANDIDATE_PATH, fixture: 'recovery-candidate' }],
    requests: [{ path: CANDIDATE_PATH, query: { incidentTime: '2026-11-21T11:59:59.250Z' } }],
    code: 0,
    stdoutJson: fixture('recovery-candidate'),
  },
  {
    name: '--json: exactly the response body',
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T12:00:00Z', '--json'],
    routes: [{ path: CANDIDATE_PATH, fixture: 'recovery-candidate' }],
    requests: [CANDIDATE_REQUEST],
    code: 0,
    stdoutJson: fixture('recovery-candidate'),
    stderrEmpty: true,
  },
  {
    name: '400 from the service is exit 2 with the request id',
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T12:00:00Z'],
    routes: [{ path: CANDIDATE_PATH, fixture: 'error-400', status: 400 }],
    requests: [CANDIDATE_REQUEST],
    code: 2,
    stdoutEmpty: true,
    stderr: ['incidentTime must be an ISO 8601 date-time.', 'req_400_1', 'HTTP 400'],
  },
  {
    name: 'contract: recommended.windowId empty',
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T12:00:00Z'],
    routes: [{ path: CANDIDATE_PATH, body: mutated('recovery-candidate', (b) => (b.recommended.windowId = '')), requestId: 'req_rc_1' }],
    requests: [CANDIDATE_REQUEST],
    code: 1,
    stderr: [fieldIssue('recommended.windowId'), 'req_rc_1'],
  },
  {
    name: 'contract: incidentTime not a timestamp',
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T12:00:00Z'],
    routes: [{ path: CANDIDATE_PATH, body: mutated('recovery-candidate', (b) => (b.incidentTime = 'noon')), requestId: 'req_rc_2' }],
    requests: [CANDIDATE_REQUEST],
    code: 1,
    stderr: [fieldIssue('incidentTime'), 'req_rc_2'],
  },
];

const proofCases: Case[] = [
  {
    name: 'human: window and proof with baseline, cursor chain and digest',
    argv: ['recovery', 'proof', 'rw_0003'],
    routes: [{ path: PROOF_PATH, fixture: 'recovery-proof' }],
    requests: [{ path: PROOF_PATH }],
    code: 0,
    stdout: [
      /Recovery window\n\s+window:\s+rw_0003\n\s+proof status:\s+verified\n\s+custody:\s+complete/,
      /Proof\n/,
      /baseline backup job:\s+bj_0007/,
      /baseline retained:\s+yes/,
      /baseline sha-256:\s+431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55/,
      /cursor chain target:\s+0\/3A000060/,
      /cursor chain segments:\s+12/,
      /cursor chain contiguous:\s+yes/,
    ],
    stderrEmpty: true,
  },
  {
    name: 'human: a broken window shows what is missing',
    argv: ['recovery', 'proof', 'rw_0002'],
    routes: [{ path: '/recovery/windows/rw_0002/proof', fixture: 'recovery-proof-broken' }],
    code: 0,
    stdout: [
      /proof status:\s+broken\n\s+custody:\s+incomplete/,
      /reason:\s+Segment 2 of the cursor chain is missing\./,
      /restore available:\s+no/,
      /baseline backup job:\s+-$/m,
      /baseline retained:\s+no/,
      /baseline sha-256:\s+-$/m,
      /cursor chain contiguous:\s+no/,
      /schema digest:\s+-$/m,
    ],
  },
  {
    name: '--json: exactly the response body',
    argv: ['recovery', 'proof', 'rw_0003', '--json'],
    routes: [{ path: PROOF_PATH, fixture: 'recovery-proof' }],
    code: 0,
    stdoutJson: fixture('recovery-proof'),
    stderrEmpty: true,
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['recovery', 'proof', 'rw_0003', '--json'],
    routes: [{ path: PROOF_PATH, body: proofWithExtra }],
    code: 0,
    stdoutJson: proofWithExtra,
  },
  {
    name: '404 is exit 5',
    argv: ['recovery', 'proof', 'rw_nope'],
    routes: [{ path: '/recovery/windows/rw_nope/proof', fixture: 'error-404', status: 404 }],
    code: 5,
    stderr: ['req_nf_1'],
  },
  ...(
    [
      ['upper-case baseline checksum', (b) => (b.proof.baselineArtifact.checksumSha256 = 'F'.repeat(64)), 'proof.baselineArtifact.checksumSha256'],
      ['contiguous missing', (b) => delete b.proof.cursorChain.contiguous, 'proof.cursorChain.contiguous'],
      ['negative segmentCount', (b) => (b.window.segmentCount = -1), 'window.segmentCount'],
      ['unknown proofStatus', (b) => (b.window.proofStatus = 'ok'), 'window.proofStatus'],
      ['short schemaDigest', (b) => (b.proof.schemaDigest = 'abc'), 'proof.schemaDigest'],
    ] as Array<[string, (b: Record<string, any>) => void, string]>
  ).map(([what, mutate, field]): Case => ({
    name: `contract: ${what} is exit 1 naming ${field}`,
    argv: ['recovery', 'proof', 'rw_0003'],
    routes: [{ path: PROOF_PATH, body: mutated('recovery-proof', mutate), requestId: 'req_rp_contract' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue(field), 'req_rp_contract'],
  })),
];

const localCases: Case[] = (
  [
    ['summary with an empty id', ['recovery', 'summary', ''], /database id/],
    ['summary without an id', ['recovery', 'summary'], /missing required argument/],
    ['candidate with an empty id', ['recovery', 'candidate', '', '--incident-time', '2026-11-21T12:00:00Z'], /database id/],
    ['candidate without --incident-time', ['recovery', 'candidate', 'db_orders'], /--incident-time/],
    ['candidate --incident-time yesterday', ['recovery', 'candidate', 'db_orders', '--incident-time', 'yesterday'], /--incident-time "yesterday"/],
    ['candidate --incident-time in another order', ['recovery', 'candidate', 'db_orders', '--incident-time', '11/21/2026 12:00'], /time zone/],
    ['candidate --incident-time date only', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21'], /--incident-time/],
    ['candidate --incident-time impossible date', ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-13-45T25:61:00Z'], /--incident-time/],
    ['candidate --incident-time empty', ['recovery', 'candidate', 'db_orders', '--incident-time', ''], /--incident-time/],
    ['candidate --incident-time epoch seconds', ['recovery', 'candidate', 'db_orders', '--incident-time', '1795262400'], /--incident-time/],
    ['proof with an empty id', ['recovery', 'proof', ''], /window id/],
    ['proof with an unknown flag', ['recovery', 'proof', 'rw_0003', '--verify'], /unknown option/],
  ] as Array<[string, string[], RegExp]>
).map(([what, argv, message]) => ({ name: `${what}: exit 2, nothing sent`, argv, requests: [], code: 2, stdoutEmpty: true, stderr: [message] }));

describe('svc recovery summary', () => {
  it.each(summaryCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('svc recovery candidate', () => {
  it.each(candidateCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('svc recovery proof', () => {
  it.each(proofCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

describe('svc recovery: local argument checks', () => {
  it.each(localCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

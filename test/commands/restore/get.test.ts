import { describe, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { fieldIssue, fixtureCopy, runCase, useServer, type Case } from '../harness.js';

const { server, configHome } = useServer();

const withExtra = fixtureCopy('restore-get');
withExtra.restoreJob.targetRedactedDsn = 'postgresql://app@db.internal:5432/orders_restored';
withExtra.restoreJob.proof.drillId = 'drill_17';

function broken(mutate: (job: Record<string, any>) => void): unknown {
  const body = fixtureCopy('restore-get');
  mutate(body.restoreJob);
  return body;
}

const cases: Case[] = [
  {
    name: 'completed: the three proof flags sit right under the state',
    argv: ['restore', 'get', 'rj_0001'],
    routes: [{ path: '/restores/rj_0001', fixture: 'restore-get' }],
    requests: [{ path: '/restores/rj_0001' }],
    code: 0,
    stdout: [
      /id:\s+rj_0001/,
      /database:\s+db_orders/,
      /mode:\s+new_database/,
      /state:\s+completed\nproof: completed backup:\s+yes\nproof: verified restore:\s+yes\nproof: proven recoverability:\s+no\n/,
      /manifest hash:\s+b1946ac92492d2347c6235b4d2611184b1946ac92492d2347c6235b4d2611184/,
      /created:\s+2026-11-21T07:00:00Z \(5h ago\)/,
      /heartbeat:\s+2026-11-21T07:03:05Z \(4h ago\)/,
      /finalized:\s+2026-11-21T07:03:10Z \(4h ago\)/,
    ],
    stdoutNot: [/error:/],
    stderrEmpty: true,
  },
  {
    name: 'failed in place: error kind and message, no heartbeat, no proof beyond the backup',
    argv: ['restore', 'get', 'rj_0002'],
    routes: [{ path: '/restores/rj_0002', fixture: 'restore-get-failed' }],
    code: 0,
    stdout: [
      /mode:\s+in_place/,
      /state:\s+failed_terminal\nproof: completed backup:\s+yes\nproof: verified restore:\s+no\nproof: proven recoverability:\s+no\n/,
      /heartbeat:\s+-$/m,
      /manifest hash:\s+-$/m,
      /error:\s+checksum_mismatch: The downloaded artifact did not match its recorded SHA-256\./,
    ],
  },
  {
    name: '--json: exactly the response body',
    argv: ['restore', 'get', 'rj_0001', '--json'],
    routes: [{ path: '/restores/rj_0001', fixture: 'restore-get' }],
    code: 0,
    stdoutJson: fixture('restore-get'),
    stderrEmpty: true,
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['restore', 'get', 'rj_0001', '--json'],
    routes: [{ path: '/restores/rj_0001', body: withExtra }],
    code: 0,
    stdoutJson: withExtra,
  },
  {
    name: '404 is exit 5',
    argv: ['restore', 'get', 'rj_nope'],
    routes: [{ path: '/restores/rj_nope', fixture: 'error-404', status: 404 }],
    code: 5,
    stdoutEmpty: true,
    stderr: ['req_nf_1', 'HTTP 404'],
  },
  {
    name: '403 names the scope the service reports',
    argv: ['restore', 'get', 'rj_0001', '--json'],
    routes: [
      {
        path: '/restores/rj_0001',
        body: (() => {
          const b = fixtureCopy('error-403');
          b.error.requiredScope = 'restores:read';
          b.error.nextAction = 'Issue a token with restores:read in Settings > API tokens.';
          return b;
        })(),
        status: 403,
      },
    ],
    code: 4,
    stdoutEmpty: true,
    stderr: ['"requiredScope":"restores:read"', '"status":403', '"requestId":"req_forbidden_1"'],
  },
  ...(
    [
      ['proof.verifiedRestore missing', (j) => delete j.proof.verifiedRestore, 'restoreJob.proof.verifiedRestore'],
      ['proof flag as a string', (j) => (j.proof.provenRecoverability = 'no'), 'restoreJob.proof.provenRecoverability'],
      ['finalizedAt missing (must be null)', (j) => delete j.finalizedAt, 'restoreJob.finalizedAt'],
      ['unknown mode', (j) => (j.mode = 'overwrite'), 'restoreJob.mode'],
      ['unknown state', (j) => (j.state = 'done'), 'restoreJob.state'],
      ['errorKind missing (must be null)', (j) => delete j.errorKind, 'restoreJob.errorKind'],
    ] as Array<[string, (j: Record<string, any>) => void, string]>
  ).map(([what, mutate, field]): Case => ({
    name: `contract: ${what} is exit 1 naming ${field}`,
    argv: ['restore', 'get', 'rj_0001'],
    routes: [{ path: '/restores/rj_0001', body: broken(mutate), requestId: 'req_rj_contract' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue(field), 'req_rj_contract'],
  })),
  ...(
    [
      ['an empty id', ['restore', 'get', '']],
      ['no id', ['restore', 'get']],
      ['an unknown flag', ['restore', 'get', 'rj_0001', '--follow']],
    ] as Array<[string, string[]]>
  ).map(([what, argv]): Case => ({ name: `${what}: exit 2, nothing sent`, argv, requests: [], code: 2, stdoutEmpty: true, stderr: [/^error: /] })),
];

describe('svc restore get', () => {
  it.each(cases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

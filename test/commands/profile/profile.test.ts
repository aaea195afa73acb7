import { describe, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { fieldIssue, fixtureCopy, runCase, useServer, type Case } from '../harness.js';

const { server, configHome } = useServer();

const profileWithExtra = fixtureCopy('profile');
profileWithExtra.profile.tokenName = 'ci runner token';
profileWithExtra.serverHints = { upgrade: false };

const badClientKind = fixtureCopy('profile');
badClientKind.profile.clientKind = 'robot';
const emptyScope = fixtureCopy('profile');
emptyScope.profile.scopes = ['databases:read', ''];
const missingSlug = fixtureCopy('profile');
delete missingSlug.profile.organizationSlug;

const cases: Case[] = [
  {
    name: 'human: key, client, organization, scopes and expiry with relative age',
    argv: ['profile'],
    routes: [{ path: '/profile', fixture: 'profile' }],
    requests: [{ path: '/profile' }],
    code: 0,
    stdout: [
      /api key id:\s+key_cli_01/,
      /client kind:\s+cli/,
      /client label:\s+ci-runner/,
      /autonomy:\s+guided/,
      /organization:\s+acme \(org_acme\)/,
      /scopes:\s+databases:read, destinations:read, backups:trigger, restores:read, restores:write, evidence:read/,
      /expires:\s+2027-02-01T00:00:00Z \(in 71d\)/,
    ],
    stderrEmpty: true,
  },
  {
    name: 'human: a token with no scopes, no label and no expiry',
    argv: ['profile'],
    routes: [{ path: '/profile', fixture: 'profile-no-scopes' }],
    requests: [{ path: '/profile' }],
    code: 0,
    stdout: [/client kind:\s+mcp_external/, /client label:\s+-$/m, /scopes:\s+\(none\)/, /expires:\s+never/, /autonomy:\s+read_only/],
    stderrEmpty: true,
  },
  {
    name: '--json: exactly the response body',
    argv: ['profile', '--json'],
    routes: [{ path: '/profile', fixture: 'profile' }],
    requests: [{ path: '/profile' }],
    code: 0,
    stdoutJson: fixture('profile'),
    stderrEmpty: true,
  },
  {
    name: '--json before the command, empty scopes kept as []',
    argv: ['--json', 'profile'],
    routes: [{ path: '/profile', fixture: 'profile-no-scopes' }],
    requests: [{ path: '/profile' }],
    code: 0,
    stdoutJson: fixture('profile-no-scopes'),
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['profile', '--json'],
    routes: [{ path: '/profile', body: profileWithExtra }],
    code: 0,
    stdoutJson: profileWithExtra,
  },
  {
    name: 'contract: unknown clientKind is exit 1 naming the field and request id',
    argv: ['profile'],
    routes: [{ path: '/profile', body: badClientKind, requestId: 'req_profile_bad' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue('profile.clientKind'), 'req_profile_bad', 'getProfile'],
  },
  {
    name: 'contract: an empty scope string is exit 1',
    argv: ['profile'],
    routes: [{ path: '/profile', body: emptyScope, requestId: 'req_scope_bad' }],
    code: 1,
    stderr: [fieldIssue('profile.scopes[1]'), 'req_scope_bad'],
  },
  {
    name: 'contract: a missing organizationSlug is exit 1',
    argv: ['profile', '--json'],
    routes: [{ path: '/profile', body: missingSlug, requestId: 'req_slug_missing' }],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue('profile.organizationSlug'), 'req_slug_missing', '"code":"contract_mismatch"'],
  },
  {
    name: '401 is exit 3 with the request id',
    argv: ['profile'],
    routes: [{ path: '/profile', fixture: 'error-401', status: 401 }],
    requests: [{ path: '/profile' }],
    code: 3,
    stdoutEmpty: true,
    stderr: ['The API key is missing, expired or revoked.', 'req_unauth_1', 'svc auth login'],
  },
  {
    name: 'profile takes no argument',
    argv: ['profile', 'extra'],
    requests: [],
    code: 2,
    stderr: [/too many arguments|unknown command|extra/i],
  },
];

describe('svc profile', () => {
  it.each(cases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });
});

/** --jq through whole commands (cli-contract 1): msw handlers over the loopback server of test/commands/harness.ts. */
import { describe, expect, it } from 'vitest';
import { runCase, useServer, type Case, type Route } from '../commands/harness.js';

const { server, configHome } = useServer();

const page1: Route = { path: '/databases', fixture: 'databases-page1', whenQuery: { cursor: null } };
const page2: Route = { path: '/databases', fixture: 'databases-page2', whenQuery: { cursor: 'cur_db_2' } };
const bothPages = [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }];

/** Rows with the exact stdout --jq must print. */
const cases: Array<Case & { out: string }> = [
  {
    name: 'strings raw, one result per line',
    argv: ['databases', 'list', '--jq', '.databases[].id'],
    routes: [page1],
    requests: [{ path: '/databases' }],
    code: 0,
    out: 'db_orders\ndb_billing\n',
  },
  {
    name: 'numbers, null and objects as compact JSON, strings raw, in result order',
    argv: ['databases', 'list', '--jq', '.databases[0] | .name, .retentionPolicyDays, .restoreDrillCron, {id, state}, .nope'],
    routes: [page1],
    requests: [{ path: '/databases' }],
    code: 0,
    out: 'orders-prod\n30\n0 3 * * 0\n{"id":"db_orders","state":"active"}\nnull\n',
  },
  {
    name: 'with --all: the merged document, every page, no cursor',
    argv: ['databases', 'list', '--all', '--jq', '(.databases | map(.id) | join(" ")), (keys | join(","))'],
    routes: [page1, page2],
    requests: bothPages,
    code: 0,
    out: 'db_orders db_billing db_analytics\ndatabases\n',
  },
  {
    name: 'the --json document of a get command, filtered',
    argv: ['databases', 'get', 'db_orders', '--jq', '.database.lastSuccessfulBackupAt'],
    routes: [{ path: '/databases/db_orders', fixture: 'database-get' }],
    code: 0,
    out: '2026-11-21T06:00:12Z\n',
  },
  {
    name: 'before the command, as a global option',
    argv: ['--jq', '.profile.scopes[0]', 'profile'],
    routes: [{ path: '/profile', fixture: 'profile' }],
    code: 0,
    out: 'databases:read\n',
  },
  {
    name: 'a list with notes for people: --jq keeps stdout to results',
    argv: ['evidence', 'list', '--jq', '.evidence | length'],
    routes: [{ path: '/evidence', fixture: 'evidence-list' }],
    code: 0,
    out: '2\n',
  },
  {
    name: 'no result prints nothing, and succeeds',
    argv: ['databases', 'list', '--jq', '.databases[] | select(.state == "melting")'],
    routes: [page1],
    requests: [{ path: '/databases' }],
    code: 0,
    out: '',
  },
];

describe('--jq on commands', () => {
  it.each(cases)('$name', async (c) => {
    const r = await runCase(server, configHome(), c);
    expect(r.stdout).toBe(c.out);
  });

  it.each([
    ['databases', 'list'],
    ['databases', 'get', 'db_orders'],
    ['api', '/profile'],
    ['backups', 'trigger', 'db_orders'],
  ])('a --jq that does not compile is exit 2 before any request: svc %s %s', async (...argv) => {
    await runCase(server, configHome(), {
      name: 'compile error',
      argv: [...argv, '--jq', '.databases[] | ]'],
      requests: [],
      code: 2,
      stdoutEmpty: true,
      stderr: ['The --jq expression does not compile: syntax error', '.databases[] | ]', 'jqlang.org/manual/v1.7'],
      stderrNot: ['jq: error', 'compile error\n'],
    });
  });

  it('an expression that fails on the document: exit 2 naming why, nothing on stdout, the --json error envelope', async () => {
    const r = await runCase(server, configHome(), {
      name: 'runtime error',
      argv: ['databases', 'list', '--jq', '.databases.id'],
      routes: [page1],
      requests: [{ path: '/databases' }],
      code: 2,
      stdoutEmpty: true,
    });
    // --jq implies --json, for errors too when stderr is not a terminal: one envelope a script can read.
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'jq_failed',
      message: 'The --jq expression failed on the result: Cannot index array with string "id". The document\'s top-level keys are .databases, .nextCursor.',
      nextAction: 'Only the --jq expression failed, on the JSON document --json prints; nothing was changed at the service.',
    });
    // Only a GET was sent: no word of a POST (cli-contract 4, v5).
    expect(r.stderr).not.toMatch(/POST/);
  });

  it('after a POST, a failed --jq says the change stands', async () => {
    const r = await runCase(server, configHome(), {
      name: 'runtime error after a POST',
      argv: ['backups', 'trigger', 'db_orders', '--jq', '.backupJobId[0]'],
      routes: [{ method: 'POST', path: '/databases/db_orders/backups', fixture: 'trigger-backup', status: 202 }],
      requests: [{ method: 'POST', path: '/databases/db_orders/backups' }],
      code: 2,
      stdoutEmpty: true,
    });
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'jq_failed',
      message: expect.stringContaining("The document's top-level key"),
      nextAction: expect.stringContaining('its change at the service stands'),
    });
  });
});

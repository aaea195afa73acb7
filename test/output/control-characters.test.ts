/**
 * Text from the service must not drive the terminal (cli-contract 4): ESC sequences (title set,
 * clear screen, OSC 52 clipboard writes), BEL and the rest of C0/C1 are removed in human output,
 * tables, key/value blocks, notes and errors alike. --json stays exactly what the service sent.
 */
import { describe, expect, it } from 'vitest';
import { fixtureCopy, handler, run, useServer } from '../commands/harness.js';
import { hostileService, svcAgainst } from '../support/hostile-cli.js';
import { withSequences, withSequencesStripped } from '../support/hostile-server.js';
import { json } from '../support/loopback-server.js';

const { server, configHome } = useServer();

const TITLE = '\u001b]0;owned\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const CLIPBOARD = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
const C1 = '\u009b31m';
const HOSTILE = `orders${TITLE}${CLEAR}-prod${CLIPBOARD}${C1}`;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('service text in human output', () => {
  it('a database name with terminal sequences: the table and the key/value block show plain text', async () => {
    const list = fixtureCopy('databases-page1');
    list.databases[0].name = HOSTILE;
    const detail = fixtureCopy('database-get');
    detail.database.name = HOSTILE;
    server.use(handler(server, { path: '/databases', body: list }), handler(server, { path: '/databases/db_orders', body: detail }));

    for (const argv of [
      ['databases', 'list'],
      ['databases', 'get', 'db_orders'],
    ]) {
      for (const tty of [false, true]) {
        const r = await run(server, configHome(), argv, { tty, columns: 200 });
        expect(r.code).toBe(0);
        expect(r.stdout, argv.join(' ')).not.toMatch(CONTROL);
        expect(r.stderr).not.toMatch(CONTROL);
        expect(r.stdout).toContain('orders]0;owned[2J[H-prod]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==31m');
      }
    }
  });

  it('--json keeps the document exact: the sequences escaped by the serialiser, not removed', async () => {
    const detail = fixtureCopy('database-get');
    detail.database.name = HOSTILE;
    server.use(handler(server, { path: '/databases/db_orders', body: detail }));
    const r = await run(server, configHome(), ['databases', 'get', 'db_orders', '--json']);
    expect(JSON.parse(r.stdout).database.name).toBe(HOSTILE);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain('\\u001b]0;owned\\u0007');
  });

  it('an error message, next action and code with sequences: plain in the human error, exact in the --json envelope', async () => {
    const body = {
      error: {
        code: `forbidden${CLEAR}`,
        message: `No access${TITLE}.`,
        requestId: 'req_ctl_1',
        requiredScope: 'databases:read',
        nextAction: `Ask${CLIPBOARD} an admin.`,
      },
    };
    server.use(handler(server, { path: '/databases', status: 403, body }));
    const human = await run(server, configHome(), ['databases', 'list']);
    expect(human.code).toBe(4);
    expect(human.stderr).not.toMatch(CONTROL);
    expect(human.stderr).toContain('error: No access]0;owned.');
    expect(human.stderr).toContain('next action: Ask]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA== an admin.');

    server.use(handler(server, { path: '/databases', status: 403, body }));
    const json = await run(server, configHome(), ['databases', 'list', '--json']);
    expect(JSON.parse(json.stderr).error).toMatchObject({ message: `No access${TITLE}.`, code: `forbidden${CLEAR}` });
  });
});

/**
 * The same rule end to end: the built CLI against a hostile service (test/support/hostile-server.ts)
 * that puts every sequence in a database name, a restore job's error and an API error (code,
 * message, next action, request id and the headers --verbose shows).
 */
describe('the built CLI against a hostile service', () => {
  const hostile = hostileService();
  const token = 'svc_live_636f6e74726f6c000000000000000000d5';
  const name = withSequences('orders');
  const svc = (args: string[]) => svcAgainst(hostile, token, args);

  function hostileDatabases(): void {
    const list = fixtureCopy('databases-page1');
    list.databases[0].name = name;
    list.nextCursor = null;
    const detail = fixtureCopy('database-get');
    detail.database.name = name;
    hostile.api('GET', '/databases', json(200, list)).api('GET', '/databases/db_orders', json(200, detail));
    hostile.api(
      'GET',
      '/restores/rj_0001',
      json(200, { restoreJob: { ...fixtureCopy('restore-get-failed').restoreJob, errorMessage: withSequences('pg_restore failed') } }),
    );
  }

  it.each([
    ['a table', ['databases', 'list'], withSequencesStripped('orders')],
    ['a key/value block', ['databases', 'get', 'db_orders'], withSequencesStripped('orders')],
    ["a restore job's error line", ['restore', 'get', 'rj_0001'], withSequencesStripped('pg_restore failed')],
  ])('%s: the sequences are removed, the text around them kept', async (_what, argv, shown) => {
    hostileDatabases();
    const r = await svc(argv);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stdout).toContain(shown);
  });

  it.each([
    ['svc databases get --json', ['databases', 'get', 'db_orders', '--json'], (doc: any) => doc.database.name, name],
    ['svc restore get --json', ['restore', 'get', 'rj_0001', '--json'], (doc: any) => doc.restoreJob.errorMessage, withSequences('pg_restore failed')],
  ])('%s: the document exact, the sequences escaped by the serialiser', async (_what, argv, pick, sent) => {
    hostileDatabases();
    const r = await svc(argv);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(pick(JSON.parse(r.stdout))).toBe(sent);
    expect(r.stdout).toContain('\\u001b]0;pwned\\u0007');
    expect(r.stdout).toContain('\\u009b31m');
  });

  const error = {
    error: {
      code: withSequences('forbidden'),
      message: withSequences('No access'),
      requestId: withSequences('req_ctl'),
      requiredScope: withSequences('databases:read'),
      nextAction: withSequences('Ask an admin'),
    },
  };
  // Header values cannot carry ESC or BEL (node refuses to send them), but a C1 byte passes.
  const headers = { 'X-Request-ID': 'req_\u009b31m_hdr', 'RateLimit-Limit': '\u009b2J120', 'RateLimit-Remaining': '1', 'RateLimit-Reset': '9' };

  it('an error with sequences in every field, with --verbose: every stderr line is plain', async () => {
    hostile.api('GET', '/databases', json(403, error, headers));
    const r = await svc(['databases', 'list', '--verbose']);
    expect(r.code).toBe(4);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).toContain(`error: ${withSequencesStripped('No access')}`);
    expect(r.stderr).toContain(`required scope: ${withSequencesStripped('databases:read')}`);
    expect(r.stderr).toContain(`next action: ${withSequencesStripped('Ask an admin')}`);
    expect(r.stderr).toContain(`request id: ${withSequencesStripped('req_ctl')}`);
    expect(r.stderr).toMatch(/http GET \/api\/v1\/databases 403 \d+ms request-id=req_31m_hdr ratelimit-limit=2J120/);
  });

  it('the same error with --json: the envelope holds every field exactly, escaped', async () => {
    hostile.api('GET', '/databases', json(403, error, headers));
    const r = await svc(['databases', 'list', '--json']);
    expect(r.code).toBe(4);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(JSON.parse(r.stderr).error).toEqual({ ...error.error, status: 403 });
  });
});

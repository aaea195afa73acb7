/**
 * Text from the service must not drive the terminal (cli-contract 4): ESC sequences (title set,
 * clear screen, OSC 52 clipboard writes), BEL and the rest of C0/C1 are removed in human output,
 * tables, key/value blocks, notes and errors alike. --json stays exactly what the service sent.
 */
import { describe, expect, it } from 'vitest';
import { fixtureCopy, handler, run, useServer } from '../commands/harness.js';

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

    for (const argv of [['databases', 'list'], ['databases', 'get', 'db_orders']]) {
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
    const body = { error: { code: `forbidden${CLEAR}`, message: `No access${TITLE}.`, requestId: 'req_ctl_1', requiredScope: 'databases:read', nextAction: `Ask${CLIPBOARD} an admin.` } };
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

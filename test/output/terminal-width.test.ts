/**
 * Human output and the terminal (cli-contract 4): on a terminal, tables fit its width by shortening
 * free-text columns with … (never ids or states), key/value lines wrap with a hanging indent, help
 * and banners wrap at word boundaries; piped, nothing is cut or wrapped. Widths are injected
 * through the context, as the terminal would report them.
 */
import { describe, expect, it } from 'vitest';
import { fixtureCopy, handler, run, useServer } from '../commands/harness.js';

const { server, configHome } = useServer();

const WIDTHS = [40, 60, 80, 120];
const LONG_NAME = 'orders production database for the european central region primary';

function databases(): unknown {
  const body = fixtureCopy('databases-page1');
  body.databases[0].name = LONG_NAME;
  delete body.nextCursor;
  return body;
}

const lines = (text: string) => text.replace(/\n$/, '').split('\n');
/** A line that is one word after its indent (or after an option's name) cannot be broken anywhere. */
const unbreakable = (line: string) => !/\S \S/.test(line.trim().replace(/^-\S*(?: <[^>]+>)?\s+/, ''));

describe('tables', () => {
  it.each(WIDTHS)('at %i columns: ids and states whole, the free-text NAME shortened with … only as needed, one line per row', async (width) => {
    server.use(handler(server, { path: '/databases', body: databases() }));
    const r = await run(server, configHome(), ['databases', 'list'], { tty: true, columns: width });
    expect(r.code).toBe(0);
    const rows = lines(r.stdout);
    expect(rows).toHaveLength(3);
    expect(rows[1]).toMatch(/^db_orders +orders /);
    expect(rows[1]).toMatch(/ neon +active +eu +30d +5h ago$/);
    expect(rows[2]).toMatch(/^db_billing +billing +rds +degraded +eu +90d +2d ago$/);
    const natural = rows[1]!.includes(LONG_NAME);
    if (natural) expect(Math.max(...rows.map((l) => l.length))).toBeLessThanOrEqual(width);
    else {
      expect(rows[1]).toContain('…');
      // Shortened as far as the other columns let it, or exactly to fit.
      expect(Math.max(...rows.map((l) => l.length)) <= width || /^db_orders +orders …/.test(rows[1]!)).toBe(true);
    }
  });

  it('on a terminal wide enough for the table nothing is shortened', async () => {
    server.use(handler(server, { path: '/databases', body: databases() }));
    const r = await run(server, configHome(), ['databases', 'list'], { tty: true, columns: 160 });
    expect(r.stdout).toContain(LONG_NAME);
    expect(r.stdout).not.toContain('…');
  });

  it('piped, values are whole and lines as long as they need to be', async () => {
    server.use(handler(server, { path: '/databases', body: databases() }));
    const r = await run(server, configHome(), ['databases', 'list']);
    expect(r.stdout).toContain(LONG_NAME);
    expect(r.stdout).not.toContain('…');
    expect(Math.max(...lines(r.stdout).map((l) => l.length))).toBeGreaterThan(100);
  });

  it('evidence list: the whole SHA-256 when piped, so grep finds it; shortened on a narrow terminal', async () => {
    const sha = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';
    server.use(handler(server, { path: '/evidence', fixture: 'evidence-list' }));
    const piped = await run(server, configHome(), ['evidence', 'list']);
    expect(piped.stdout.split('\n').filter((l) => l.includes(sha))).toHaveLength(1);
    server.use(handler(server, { path: '/evidence', fixture: 'evidence-list' }));
    const narrow = await run(server, configHome(), ['evidence', 'list'], { tty: true, columns: 80 });
    expect(narrow.stdout).not.toContain(sha);
    expect(narrow.stdout).toMatch(/^bj_0007 +92\.9 KiB +431f169e\S*… +5h ago +passed +2$/m);
    expect(Math.max(...lines(narrow.stdout).map((l) => l.length))).toBeLessThanOrEqual(80);
  });
});

describe('key/value blocks', () => {
  it.each(WIDTHS)('at %i columns a long value wraps at spaces under itself (a hanging indent)', async (width) => {
    const body = fixtureCopy('database-get');
    body.database.name = LONG_NAME;
    server.use(handler(server, { path: '/databases/db_orders', body }));
    const r = await run(server, configHome(), ['databases', 'get', 'db_orders'], { tty: true, columns: width });
    const out = lines(r.stdout);
    const first = out.findIndex((l) => l.startsWith('name:'));
    const valueColumn = out[first]!.indexOf('orders');
    const nameLines = [out[first]!.slice(valueColumn)];
    for (let i = first + 1; out[i]!.startsWith(' '.repeat(valueColumn)); i++) nameLines.push(out[i]!.slice(valueColumn));
    // Every word whole, in order: wrapping never cuts one.
    expect(nameLines.join(' ')).toBe(LONG_NAME);
    if (valueColumn + LONG_NAME.length <= width) expect(nameLines).toHaveLength(1);
    else expect(nameLines.length).toBeGreaterThan(1);
    for (const l of out) expect(l.length).toBeLessThanOrEqual(Math.max(width, valueColumn + 12));
  });

  it('piped, a long value stays on one line', async () => {
    const body = fixtureCopy('database-get');
    body.database.name = LONG_NAME;
    server.use(handler(server, { path: '/databases/db_orders', body }));
    const r = await run(server, configHome(), ['databases', 'get', 'db_orders']);
    expect(r.stdout).toMatch(new RegExp(`^name: +${LONG_NAME}$`, 'm'));
  });
});

describe('help and banners', () => {
  // Words the old hard-wrapped footer cut in two at 80 and 100 columns.
  const WORDS = ['precondition', 'NODE_EXTRA_CA_CERTS', 'XDG_CONFIG_HOME', 'interrupted'];

  it.each(WIDTHS)('svc --help at %i columns: every line fits, no word cut', async (width) => {
    const r = await run(server, configHome(), ['--help'], { tty: true, columns: width });
    for (const l of lines(r.stdout)) if (!l.startsWith('  $ ') && !unbreakable(l)) expect(l.length, l).toBeLessThanOrEqual(width);
    for (const w of WORDS) expect(r.stdout).toContain(w);
  });

  it.each(WIDTHS)('svc restore create --help at %i columns: the prose wraps at words; example commands stay whole', async (width) => {
    const r = await run(server, configHome(), ['restore', 'create', '--help'], { tty: true, columns: width });
    for (const l of lines(r.stdout)) if (!l.startsWith('  $ ') && !unbreakable(l)) expect(l.length, l).toBeLessThanOrEqual(width);
    expect(r.stdout.replace(/\n/g, ' ')).toContain("in_place drops and recreates the archive's objects in the existing database");
    expect(r.stdout).toContain('  $ svc restore create --backup bj_123 --target postgresql://app@db.internal/orders --in-place --confirm\n');
  });

  it('subcommand help lists the global options, and group help has examples', async () => {
    const verb = await run(server, configHome(), ['databases', 'get', '--help']);
    expect(verb.stdout).toMatch(/^Global Options:$/m);
    expect(verb.stdout).toMatch(/^ {2}--profile <name> /m);
    const group = await run(server, configHome(), ['databases', '--help']);
    expect(group.stdout).toMatch(/^Examples:\n {2}\$ svc databases list$/m);
  });

  it('the svc sandbox banner wraps at word boundaries on a 100-column terminal', async () => {
    const controller = new AbortController();
    const started = run(server, configHome(), ['sandbox', '--port', '0'], { tty: true, columns: 100, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 500));
    controller.abort('SIGINT');
    const r = await started;
    expect(r.code).toBe(0);
    for (const l of lines(r.stderr)) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(r.stderr.replace(/\n/g, ' ')).toContain('A local stand-in for the Backup Protection Service API v1, for development and CI only.');
  });
});

describe('stdout carries data only', () => {
  it('`svc backups list db | wc -l` counts jobs: the caveat is on stderr (and still on a terminal)', async () => {
    server.use(handler(server, { path: '/databases/db_orders/backups', fixture: 'backups-list' }));
    const r = await run(server, configHome(), ['backups', 'list', 'db_orders']);
    expect(lines(r.stdout)).toHaveLength(1 + 3);
    expect(r.stderr).toContain('A completed backup is not proof of recoverability');
  });

  it('--quiet silences the notes; the data is unchanged', async () => {
    server.use(handler(server, { path: '/databases/db_orders/backups', fixture: 'backups-list' }));
    const r = await run(server, configHome(), ['backups', 'list', 'db_orders', '--quiet']);
    expect(lines(r.stdout)).toHaveLength(4);
    expect(r.stderr).toBe('');
  });
});

/**
 * Human output and the terminal (cli-contract 4): on a terminal, tables fit its width by shortening
 * free-text columns with … (never ids or states), key/value lines wrap with a hanging indent, help
 * and banners wrap at word boundaries; piped, nothing is cut or wrapped. Widths are injected
 * through the context, as the terminal would report them.
 */
import { describe, expect, it } from 'vitest';
import { fixtureCopy, handler, run, useServer } from '../commands/harness.js';
import { onceSeen } from '../support/shell-gate.js';

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
  /** The droppable columns of `svc databases list`, the least useful first (src/commands/databases/list.ts). */
  const DROPPED_FIRST = ['REGION', 'RETENTION', 'PROVIDER', 'LAST BACKUP'];

  it.each(WIDTHS)(
    'at %i columns: headers shortened, then the least useful columns left out, then the free-text NAME shortened with …; ids and states whole',
    async (width) => {
      server.use(handler(server, { path: '/databases', body: databases() }));
      const r = await run(server, configHome(), ['databases', 'list'], { tty: true, columns: width });
      expect(r.code).toBe(0);
      const [header = '', ...rows] = lines(r.stdout);
      expect(rows).toHaveLength(2);
      for (const l of [header, ...rows]) expect(l.length, l).toBeLessThanOrEqual(width);
      const shown = header.split(/ {2,}/);
      expect(shown).toEqual(expect.arrayContaining(['ID', 'NAME', 'STATE']));
      const dropped = DROPPED_FIRST.filter((c) => !shown.includes(c));
      expect(shown).not.toContain('LAST COMPLETED BACKUP');
      expect(dropped).toEqual(DROPPED_FIRST.slice(0, dropped.length));
      expect(rows[0]).toMatch(/^db_orders +orders /);
      expect(rows[0]).toMatch(/ active( |$)/);
      expect(rows[1]).toMatch(/^db_billing +billing +(\S+ +)?degraded( |$)/);
      if (rows[0]!.includes(LONG_NAME)) expect(rows[0]).not.toContain('…');
      // A value is shortened only once no column is left to go.
      else expect([rows[0]!.includes('…'), dropped]).toEqual([true, DROPPED_FIRST]);
    },
  );

  it('on a terminal wide enough for the table nothing is shortened or left out', async () => {
    server.use(handler(server, { path: '/databases', body: databases() }));
    const r = await run(server, configHome(), ['databases', 'list'], { tty: true, columns: 160 });
    expect(r.stdout).toContain(LONG_NAME);
    expect(r.stdout).toMatch(/^ID +NAME +PROVIDER +STATE +REGION +RETENTION +LAST COMPLETED BACKUP$/m);
    expect(r.stdout).not.toContain('…');
  });

  it('piped, values are whole and lines as long as they need to be', async () => {
    server.use(handler(server, { path: '/databases', body: databases() }));
    const r = await run(server, configHome(), ['databases', 'list']);
    expect(r.stdout).toContain(LONG_NAME);
    expect(r.stdout).toMatch(/^ID +NAME +PROVIDER +STATE +REGION +RETENTION +LAST COMPLETED BACKUP$/m);
    expect(r.stdout).not.toContain('…');
    expect(Math.max(...lines(r.stdout).map((l) => l.length))).toBeGreaterThan(100);
  });

  it('evidence list: the whole SHA-256 when piped, so grep finds it; on a terminal whole where it fits, else left out, never cut', async () => {
    const sha = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';
    server.use(handler(server, { path: '/evidence', fixture: 'evidence-list' }));
    const piped = await run(server, configHome(), ['evidence', 'list']);
    expect(piped.stdout.split('\n').filter((l) => l.includes(sha))).toHaveLength(1);
    server.use(handler(server, { path: '/evidence', fixture: 'evidence-list' }));
    const narrow = await run(server, configHome(), ['evidence', 'list'], { tty: true, columns: 80 });
    expect(narrow.stdout).not.toContain('431f169e');
    expect(narrow.stdout).toMatch(/^BACKUP JOB +SIZE +RECORDED +INTEGRITY +EVENTS$/m);
    expect(narrow.stdout).toMatch(/^bj_0007 +92\.9 KiB +5h ago +passed +2$/m);
    server.use(handler(server, { path: '/evidence', fixture: 'evidence-list' }));
    const wide = await run(server, configHome(), ['evidence', 'list'], { tty: true, columns: 120 });
    expect(wide.stdout).toMatch(new RegExp(`^bj_0007 +92\\.9 KiB +${sha} +5h ago +passed +2$`, 'm'));
    for (const l of lines(wide.stdout)) expect(l.length).toBeLessThanOrEqual(120);
  });

  it('where not even the ids and states fit side by side, each row is a key/value block of its own', async () => {
    server.use(handler(server, { path: '/mcp/tools', fixture: 'tools' }));
    const r = await run(server, configHome(), ['tools', 'list'], { tty: true, columns: 24 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^name:\n {2}svc\.backup\.trigger\nkind: +live$/m);
    expect(r.stdout).not.toContain('…');
    for (const l of lines(r.stdout)) expect(l.length, l).toBeLessThanOrEqual(l.trim() === 'svc.destination.preflight' ? 25 : 24);
  });
});

describe('key/value blocks', () => {
  it.each(WIDTHS)('at %i columns a long value wraps at spaces (a hanging indent), every word whole', async (width) => {
    const body = fixtureCopy('database-get');
    body.database.name = LONG_NAME;
    server.use(handler(server, { path: '/databases/db_orders', body }));
    const r = await run(server, configHome(), ['databases', 'get', 'db_orders'], { tty: true, columns: width });
    const out = lines(r.stdout);
    const first = out.findIndex((l) => l.startsWith('name:'));
    const next = out.findIndex((l, i) => i > first && /^\S/.test(l));
    // Every word whole, in order: wrapping never cuts one.
    expect(
      out
        .slice(first, next)
        .join(' ')
        .replace(/^name:/, '')
        .trim()
        .split(/\s+/)
        .join(' '),
    ).toBe(LONG_NAME);
    if (out[first]!.length + 0 >= `name: ${LONG_NAME}`.length) expect(next - first).toBe(1);
    else expect(next - first).toBeGreaterThan(1);
    for (const l of out) expect(l.length, l).toBeLessThanOrEqual(width);
  });

  it.each(WIDTHS)('at %i columns a digest is never split or cut: beside its key where it fits, else whole on its own line', async (width) => {
    const sha = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';
    server.use(handler(server, { path: '/backups/bj_0007', fixture: 'backup-get-completed' }));
    const r = await run(server, configHome(), ['backups', 'get', 'bj_0007'], { tty: true, columns: width });
    const out = lines(r.stdout);
    const at = out.findIndex((l) => l.includes(sha));
    expect(out.filter((l) => l.includes('431f169e'))).toHaveLength(1);
    if (width >= 80) expect(out[at]).toMatch(new RegExp(`^ +sha-256: +${sha}$`));
    else {
      expect(out[at - 1]).toMatch(/^ +sha-256:$/);
      expect(out[at]!.trim()).toBe(sha);
    }
    for (const l of out) if (l.trim() !== sha) expect(l.length, l).toBeLessThanOrEqual(width);
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
  /** Help's example lines as the shell reads them back: continuation lines joined to the line before. */
  const commandsOf = (help: string) =>
    help
      .replace(/ \\\n {4}/g, ' ')
      .replace(/(\||&&)\n {4}/g, '$1 ')
      .split('\n')
      .filter((l) => l.startsWith('  $ '))
      .map((l) => l.slice(4).replace(/ +#.*$/, ''));

  it.each(WIDTHS)('svc --help at %i columns: every line fits, no word cut', async (width) => {
    const r = await run(server, configHome(), ['--help'], { tty: true, columns: width });
    for (const l of lines(r.stdout)) expect(l.length, l).toBeLessThanOrEqual(width);
    for (const w of WORDS) expect(r.stdout).toContain(w);
  });

  it.each(WIDTHS)('svc restore create --help at %i columns: the prose wraps at words; an example is broken only as a shell continuation', async (width) => {
    const r = await run(server, configHome(), ['restore', 'create', '--help'], { tty: true, columns: width });
    for (const l of lines(r.stdout)) expect(l.length, l).toBeLessThanOrEqual(width);
    expect(r.stdout.replace(/\n/g, ' ')).toContain(
      "then swaps the names in one transaction, carrying over the target's owner, privileges, settings and comment",
    );
    expect(commandsOf(r.stdout)).toContain('svc restore create --backup bj_123 --in-place --confirm --target postgresql://app@db.internal/orders');
    if (width < 80) expect(r.stdout).toMatch(/^ {2}\$ svc restore create --backup bj_123 [^\n]*\\$/m);
  });

  it.each(WIDTHS)('svc completion --help at %i columns: a PowerShell pipeline is broken only after a pipe, never with a backslash', async (width) => {
    const r = await run(server, configHome(), ['completion', '--help'], { tty: true, columns: width });
    for (const l of lines(r.stdout)) expect(l.length, l).toBeLessThanOrEqual(width);
    expect(commandsOf(r.stdout)).toContain('svc completion powershell | Out-String | Invoke-Expression');
    expect(r.stdout).not.toMatch(/powershell[^\n]*\\$/m);
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
    // Stopped once it says it listens (its banner's last line), not after a fixed delay.
    const started = run(server, configHome(), ['sandbox', '--port', '0'], {
      tty: true,
      columns: 100,
      signal: controller.signal,
      onStderr: onceSeen(/Ctrl-C\s+stops\s+it\./, () => controller.abort('SIGINT')),
    });
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

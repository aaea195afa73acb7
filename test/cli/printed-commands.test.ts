/**
 * Every command svc prints for a person, fed hostile values by the service (a loopback server) or
 * given on the command line, then pasted into a real `sh -c` with a stub `svc` first on PATH
 * (cli-contract 7.16 c, issue 29 item 5): the stub is the only program that runs, once, with exactly
 * the arguments svc meant, control characters included (printf writes them back: the printed line
 * holds none), the flags the user gave included (cli-contract 4, v5); the marker file an
 * injected `touch` would create never exists. A service once got `Next: svc restore create --window
 * rw_usr_1;touch${IFS}/tmp/x;#` printed as is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { json, LoopbackServer } from '../support/loopback-server.js';
import { PasteShell } from '../support/paste-shell.js';
import { runCli } from '../support/run-cli.js';

const TOKEN = 'svc_test_printed_commands_0123456789';
const TARGET = ['--target', 'postgresql://USER@HOST:5432/NEW_DATABASE'];
const shell = new PasteShell();
let server: LoopbackServer;
let home: string;

beforeEach(async () => {
  server = await new LoopbackServer().start();
  home = mkdtempSync(join(tmpdir(), 'svc-printed-'));
});
afterEach(async () => {
  await server.stop();
  rmSync(home, { recursive: true, force: true });
});
afterAll(() => shell.cleanup());

const svc = (args: string[]) =>
  runCli(['--base-url', server.baseUrl, '--profile', 'ops', ...args], { env: { HOME: home, XDG_CONFIG_HOME: home, SVC_API_KEY: TOKEN } });
const given = () => ['--base-url', server.baseUrl, '--profile', 'ops'];

/** The text between two lines of stderr: the command block svc printed, as a person would select it. */
function between(stderr: string, after: string, before: string): string {
  const start = stderr.indexOf(after);
  const end = stderr.indexOf(before, start);
  expect(start >= 0 && end > start, `no command between "${after}" and "${before}" in:\n${stderr}`).toBe(true);
  return stderr.slice(start + after.length, end);
}

/** What stderr holds after a line: the last command block. */
const rest = (stderr: string, after: string) => stderr.slice(stderr.indexOf(after) + after.length).trimEnd();

async function expectOnlySvc(command: string, args: string[]): Promise<void> {
  const pasted = await shell.paste(command);
  expect(pasted.runs, `pasted:\n${command}\nsh said: ${pasted.stderr}`).toEqual([{ program: 'svc', args }]);
  expect(shell.injected, `pasting ran more than svc:\n${command}`).toBe(false);
}

const payloads = Object.entries(shell.payloads);
const withWindow = (name: string, windowId: string) => {
  const body = fixture(name);
  const window = body.latest ?? body.recommended;
  window.windowId = windowId;
  return body;
};

describe('recovery summary and candidate: the Next: command, with a window id from the service', () => {
  it.each(payloads)('summary, window id with %s', async (_kind, windowId) => {
    server.otherwise(() => json(200, withWindow('recovery-summary', windowId)));
    const r = await svc(['recovery', 'summary', 'db_orders']);
    expect(r.code, r.stderr).toBe(0);
    const restore = between(r.stderr, 'add --dry-run to check it first:\n', '\nTo rehearse');
    // One line: no line of it, copied alone, is a command of its own.
    expect(restore).not.toContain('\n');
    await expectOnlySvc(restore, [...given(), 'restore', 'create', '--window', windowId, ...TARGET]);
    await expectOnlySvc(rest(r.stderr, 'To rehearse without touching anything:\n'), [...given(), 'restore', 'drill', 'db_orders']);
  });

  it.each(payloads)('candidate, window id with %s', async (_kind, windowId) => {
    server.otherwise(() => json(200, withWindow('recovery-candidate', windowId)));
    const r = await svc(['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T12:00:00Z']);
    expect(r.code, r.stderr).toBe(0);
    const restore = between(r.stderr, 'add --dry-run to check it first:\n', '\nTo rehearse');
    await expectOnlySvc(restore, [...given(), 'restore', 'create', '--window', windowId, ...TARGET]);
  });

  it.each(payloads)('no restorable window: the database id given with %s', async (_kind, databaseId) => {
    server.otherwise(() => json(200, { ...fixture<Record<string, unknown>>('recovery-summary-none'), databaseId }));
    const dash = databaseId.startsWith('-') ? ['--'] : [];
    const r = await svc(['recovery', 'summary', ...dash, databaseId]);
    expect(r.code, r.stderr).toBe(0);
    const restore = between(r.stderr, 'add --dry-run to check it first:\n', '\nTo rehearse');
    await expectOnlySvc(restore, [...given(), 'restore', 'create', '--database', databaseId, '--latest', ...TARGET]);
    await expectOnlySvc(rest(r.stderr, 'To rehearse without touching anything:\n'), [...given(), 'restore', 'drill', ...dash, databaseId]);
  });
});

describe('hints that carry a command', () => {
  it.each(payloads.filter(([kind]) => kind !== 'dash'))('backups list of an empty history, the database id given with %s', async (_kind, databaseId) => {
    server.otherwise(() => json(200, fixture('backups-list-empty')));
    const r = await svc(['backups', 'list', databaseId]);
    expect(r.code, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.includes('Start one with: '));
    expect(line, r.stderr).toBeDefined();
    await expectOnlySvc(line!.slice(line!.indexOf('Start one with: ') + 'Start one with: '.length), [...given(), 'backups', 'trigger', databaseId]);
  });

  it.each(payloads)('backups trigger, a backup job id from the service with %s', async (_kind, backupJobId) => {
    server.otherwise(() => json(202, { ...fixture<Record<string, unknown>>('trigger-backup'), backupJobId }));
    const r = await svc(['backups', 'trigger', 'db_orders']);
    expect(r.code, r.stderr).toBe(0);
    const dash = backupJobId.startsWith('-') ? ['--'] : [];
    await expectOnlySvc(between(r.stderr, 'Follow it with: ', '  (or run trigger with --wait)'), [...given(), 'backups', 'get', ...dash, backupJobId]);
  });

  it('a 404 names the listing command with the flags given', async () => {
    server.otherwise(() => json(404, fixture('error-404')));
    const r = await svc(['databases', 'get', 'db_nope']);
    expect(r.code).toBe(5);
    const line = r.stderr.split('\n').find((l) => l.includes('To see what exists: '))!;
    await expectOnlySvc(line.slice(line.indexOf('To see what exists: ') + 'To see what exists: '.length), [...given(), 'databases', 'list']);
  });
});

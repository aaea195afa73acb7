/**
 * The official MCP Inspector's CLI (`mcp-inspector-cli --cli`, @modelcontextprotocol/inspector-cli,
 * a devDependency): a client nobody here wrote lists svc's tools and calls list_databases, starting
 * `svc mcp serve` itself with the user's saved login (a profile), not a token in its environment.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectNoSecretsLeft } from '../support/secret-scan.js';
import { SVC, cleanEnv, cleanupE2e, ensureBuilt, ROOT, startE2eSandbox, svc, type E2eSandbox } from './helpers.js';

const INSPECTOR = join(ROOT, 'node_modules', '.bin', 'mcp-inspector-cli');
let sb: E2eSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  await ensureBuilt();
  sb = await startE2eSandbox();
  env = cleanEnv();
  const login = await svc(['auth', 'login', '--with-token', '--profile', 'inspector', '--base-url', sb.baseUrl], { env, input: sb.token('full') });
  expect(login.code, login.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await sb?.stop();
  cleanupE2e();
});

/**
 * The inspector starts the server with a minimal environment of its own (PATH, HOME, ...), plus
 * what -e gives: the profile and where its login is, never the token. It looks for its own
 * package.json at ../package.json of the working directory (a quirk of inspector-cli 1.0.3 outside
 * its monorepo), so it runs from test/, whose parent holds one.
 */
async function inspector(method: string[]) {
  const serverEnv = ['XDG_CONFIG_HOME', 'DBUS_SESSION_BUS_ADDRESS'].flatMap((k) => ['-e', `${k}=${env[k]}`]);
  const r = await execa(INSPECTOR, ['--cli', ...serverEnv, '-e', 'SVC_PROFILE=inspector', process.execPath, SVC, 'mcp', 'serve', ...method], {
    cwd: join(ROOT, 'test'),
    env,
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
  await expectNoSecretsLeft({ texts: [r.stdout, r.stderr], paths: [env.TMPDIR!] }, { tokens: sb.tokens.map((t) => t.token) });
  return r;
}

it('lists the tools, each with annotations and an output schema', async () => {
  const r = await inspector(['--method', 'tools/list']);
  expect(r.exitCode, r.stderr).toBe(0);
  const { tools } = JSON.parse(r.stdout);
  expect(tools.map((t: { name: string }) => t.name)).toContain('list_databases');
  expect(tools.map((t: { name: string }) => t.name)).toContain('plan_restore');
  for (const t of tools) {
    expect(t.annotations.readOnlyHint, t.name).toEqual(expect.any(Boolean));
    expect(t.outputSchema.type, t.name).toBe('object');
  }
}, 90_000);

it('calls list_databases: structuredContent and its text form', async () => {
  const r = await inspector(['--method', 'tools/call', '--tool-name', 'list_databases', '--tool-arg', 'limit=1']);
  expect(r.exitCode, r.stderr).toBe(0);
  const result = JSON.parse(r.stdout);
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent.databases.map((d: { id: string }) => d.id)).toEqual(['db_orders']);
  expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  expect(sb.requests.some((e) => e.path === '/api/v1/databases' && e.status === 200)).toBe(true);
}, 90_000);

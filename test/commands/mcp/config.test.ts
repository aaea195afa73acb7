/**
 * `svc mcp config <client>`: the snippet each agent client reads, on stdout, where it goes on
 * stderr; the profile, never a token, and no request at all.
 */
import { describe, expect, it } from 'vitest';
import { runCase, TOKEN, useServer } from '../harness.js';

const { server, configHome } = useServer();

const serve = (args: string[] = []) => ({ command: 'svc', args: ['mcp', 'serve', ...args], env: { SVC_PROFILE: 'default' } });

describe('svc mcp config', () => {
  it('claude: .mcp.json with a stdio server, the profile in its env, nothing sent', async () => {
    const r = await runCase(server, configHome(), {
      name: 'claude',
      argv: ['mcp', 'config', 'claude'],
      requests: [],
      code: 0,
      stderr: [/Add this to \.mcp\.json/, /never a token/],
    });
    expect(JSON.parse(r.stdout)).toEqual({ mcpServers: { svc: { type: 'stdio', ...serve() } } });
  });

  it('claude: the add-json command gets only the server entry, quoted as one argument, and it parses back', async () => {
    const r = await runCase(server, configHome(), { name: 'claude add-json', argv: ['mcp', 'config', 'claude', '--read-only'], requests: [], code: 0 });
    const line = r.stderr.split('\n').find((l) => l.includes('claude mcp add-json'));
    expect(line, r.stderr).toBeDefined();
    const m = /claude mcp add-json --scope user svc '(.*)'$/.exec(line!.trim());
    expect(m, line).not.toBeNull();
    // The entry itself, never the {"mcpServers": ...} document .mcp.json holds.
    expect(JSON.parse(m![1]!)).toEqual({ type: 'stdio', ...serve(['--read-only']) });
    expect(r.stderr).not.toMatch(/add-json svc`/);
  });

  it('cursor: .cursor/mcp.json', async () => {
    const r = await runCase(server, configHome(), {
      name: 'cursor',
      argv: ['mcp', 'config', 'cursor'],
      requests: [],
      code: 0,
      stderr: [/\.cursor\/mcp\.json/],
    });
    expect(JSON.parse(r.stdout)).toEqual({ mcpServers: { svc: serve() } });
  });

  it('vscode: .vscode/mcp.json, whose key is servers', async () => {
    const r = await runCase(server, configHome(), {
      name: 'vscode',
      argv: ['mcp', 'config', 'vscode', '--read-only'],
      requests: [],
      code: 0,
      stderr: [/\.vscode\/mcp\.json/],
    });
    expect(JSON.parse(r.stdout)).toEqual({ servers: { svc: { type: 'stdio', ...serve(['--read-only']) } } });
  });

  it('codex: a TOML table for ~/.codex/config.toml, with the profile and flags given', async () => {
    const r = await runCase(server, configHome(), {
      name: 'codex',
      argv: ['--profile', 'prod', 'mcp', 'config', 'codex', '--tools', 'list_databases,plan_restore'],
      requests: [],
      code: 0,
      stderr: [/~\/\.codex\/config\.toml/, /svc auth login --profile prod/],
    });
    expect(r.stdout).toBe(
      [
        '[mcp_servers.svc]',
        'command = "svc"',
        'args = [',
        '  "mcp",',
        '  "serve",',
        '  "--tools",',
        '  "list_databases,plan_restore",',
        ']',
        '',
        '[mcp_servers.svc.env]',
        'SVC_PROFILE = "prod"',
        '',
      ].join('\n'),
    );
  });

  it('--json: the server entry as data; SVC_API_KEY in the environment never reaches the snippet', async () => {
    const r = await runCase(server, configHome(), {
      name: 'json',
      argv: ['mcp', 'config', 'claude', '--json'],
      requests: [],
      code: 0,
      env: { SVC_API_KEY: TOKEN },
    });
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ client: 'claude', format: 'json', server: serve() });
    expect(r.stdout).not.toContain('SVC_API_KEY');
  });
});

import { describe, expect, it } from 'vitest';
import { fixture } from '../../support/fixtures.js';
import { fieldIssue, fixtureCopy, runCase, useServer, type Case } from '../harness.js';

const { server, configHome } = useServer();

const TOOLS = { path: '/mcp/tools', fixture: 'tools' } as const;
const CONTRACT_WARNING = /warning: .*requires client contract w5\.0\.0.*w4\.2\.0/;

const withExtra = fixtureCopy('tools');
withExtra.transport = 'http-discovery';
withExtra.tools[1].inputSchema = { type: 'object', properties: { databaseId: { type: 'string' } } };

const olderContract = fixtureCopy('tools');
olderContract.minimumClientContract = 'w4.1.3';

const listCases: Case[] = [
  {
    name: 'human: version line, the three kinds, and the human gate beside its tool',
    argv: ['tools', 'list'],
    routes: [TOOLS],
    requests: [{ path: '/mcp/tools' }],
    code: 0,
    stdout: [
      /^NAME\s+KIND\s+RISK\s+ROUTE SCOPE\s+HUMAN GATE/,
      /svc\.backup\.trigger\s+live\s+safe_write\s+backups:trigger\s+-/,
      /svc\.audit\.inspect\s+no live route\s+read_only\s+-\s+-/,
      /svc\.evidence\.export\s+no live route\s+sensitive_write\s+-\s+confirmation_required/,
      /svc\.recovery\.restore\s+advisory\s+advisory\s+-\s+-/,
      /svc\.diagnostics\.diagnose\s+advisory/,
    ],
    // The version line and the reminder are for the reader: stderr, so stdout is the table alone.
    stdoutNot: ['Tool catalog', /Only "live"/],
    stderr: ['Tool catalog w4.2.0 (minimum client contract w4.2.0)', /Only "live" tools may be invoked/],
  },
  {
    name: '--json: exactly the catalog',
    argv: ['tools', 'list', '--json'],
    routes: [TOOLS],
    code: 0,
    stdoutJson: fixture('tools'),
    stderrEmpty: true,
  },
  {
    name: '--json keeps unknown extra fields',
    argv: ['tools', 'list', '--json'],
    routes: [{ path: '/mcp/tools', body: withExtra }],
    code: 0,
    stdoutJson: withExtra,
  },
  {
    name: 'a catalog needing client contract w5.0.0 warns on stderr, output still printed',
    argv: ['tools', 'list'],
    routes: [{ path: '/mcp/tools', fixture: 'tools-w5' }],
    code: 0,
    stdout: [/svc\.backup\.trigger\s+live/],
    stderr: ['Tool catalog w5.0.0', CONTRACT_WARNING, 'Upgrade svc'],
  },
  {
    name: 'the w5.0.0 warning stays on stderr under --json',
    argv: ['tools', 'list', '--json'],
    routes: [{ path: '/mcp/tools', fixture: 'tools-w5' }],
    code: 0,
    stdoutJson: fixture('tools-w5'),
    stderr: [CONTRACT_WARNING],
  },
  {
    name: '--quiet silences the contract warning',
    argv: ['tools', 'list', '--quiet'],
    routes: [{ path: '/mcp/tools', fixture: 'tools-w5' }],
    code: 0,
    stdout: ['svc.backup.trigger'],
    stderrEmpty: true,
  },
  {
    name: 'an older minimum client contract draws no warning',
    argv: ['tools', 'list'],
    routes: [{ path: '/mcp/tools', body: olderContract }],
    code: 0,
    stdout: ['svc.backup.trigger'],
    stderr: ['minimum client contract w4.1.3'],
    stderrNot: ['warning'],
  },
  {
    name: 'an empty catalog',
    argv: ['tools', 'list'],
    routes: [{ path: '/mcp/tools', body: { version: 'w4.2.0', minimumClientContract: 'w4.2.0', tools: [] } }],
    code: 0,
    stdoutEmpty: true,
    stderr: ['The catalog lists no tools.'],
  },
  {
    name: 'contract: a tool without a name is exit 1',
    argv: ['tools', 'list'],
    routes: [
      {
        path: '/mcp/tools',
        body: (() => {
          const b = fixtureCopy('tools');
          delete b.tools[3].name;
          return b;
        })(),
        requestId: 'req_tools_bad',
      },
    ],
    code: 1,
    stdoutEmpty: true,
    stderr: [fieldIssue('tools[3].name'), 'req_tools_bad'],
  },
  {
    name: 'contract: tools missing is exit 1',
    argv: ['tools', 'list'],
    routes: [{ path: '/mcp/tools', body: { version: 'w4.2.0' }, requestId: 'req_tools_none' }],
    code: 1,
    stderr: [fieldIssue('tools'), 'req_tools_none'],
  },
  {
    name: '401 is exit 3',
    argv: ['tools', 'list'],
    routes: [{ path: '/mcp/tools', fixture: 'error-401', status: 401 }],
    code: 3,
    stderr: ['req_unauth_1'],
  },
];

const getCases: Case[] = [
  {
    name: 'a live tool',
    argv: ['tools', 'get', 'svc.backup.trigger'],
    routes: [TOOLS],
    requests: [{ path: '/mcp/tools' }],
    code: 0,
    stdout: [
      /name:\s+svc\.backup\.trigger/,
      /kind:\s+live/,
      /risk:\s+safe_write/,
      /capability scope:\s+capability:backup\.trigger/,
      /route scope:\s+backups:trigger/,
      /human gate:\s+-/,
      /description:\s+Start an ad-hoc backup job/,
    ],
    stderrEmpty: true,
  },
  {
    name: 'a human-gated tool with no live route',
    argv: ['tools', 'get', 'svc.evidence.export'],
    routes: [TOOLS],
    code: 0,
    stdout: [/kind:\s+no live route/, /route scope:\s+-/, /human gate:\s+confirmation_required/],
  },
  {
    name: 'an advisory tool',
    argv: ['tools', 'get', 'svc.recovery.restore'],
    routes: [TOOLS],
    code: 0,
    stdout: [/kind:\s+advisory/, /capability scope:\s+-/],
  },
  {
    name: '--json: exactly that tool entry',
    argv: ['tools', 'get', 'svc.evidence.export', '--json'],
    routes: [TOOLS],
    code: 0,
    stdoutJson: fixture('tools').tools[3],
  },
  {
    name: 'an unknown name is exit 5 and names the tool',
    argv: ['tools', 'get', 'svc.recovery.teleport'],
    routes: [TOOLS],
    requests: [{ path: '/mcp/tools' }],
    code: 5,
    stdoutEmpty: true,
    stderr: ['svc.recovery.teleport', 'svc tools list'],
  },
  {
    name: 'an unknown name under --json: the error envelope, stdout empty',
    argv: ['tools', 'get', 'svc.recovery.teleport', '--json'],
    routes: [TOOLS],
    code: 5,
    stdoutEmpty: true,
    stderr: ['"code":"tool_not_found"'],
  },
  {
    name: 'names are matched exactly',
    argv: ['tools', 'get', 'SVC.BACKUP.TRIGGER'],
    routes: [TOOLS],
    code: 5,
    stdoutEmpty: true,
  },
  {
    name: 'an empty name is exit 2, nothing sent',
    argv: ['tools', 'get', ''],
    requests: [],
    code: 2,
    stderr: [/tool name/],
  },
];

describe('svc tools list', () => {
  it.each(listCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });

  it('every tool of the catalog appears once, with the kind the contract gives it', async () => {
    const r = await runCase(server, configHome(), { name: 'kinds', argv: ['tools', 'list'], routes: [TOOLS], code: 0 });
    const catalog = fixture('tools');
    const kinds = new Map<string, string>();
    for (const line of r.stdout.split('\n')) {
      const m = /^(svc\.\S+)\s+(live|no live route|advisory)\s/.exec(line);
      if (m) kinds.set(m[1]!, m[2]!);
    }
    expect(kinds.size).toBe(catalog.tools.length);
    expect([...kinds.values()].filter((k) => k === 'live')).toHaveLength(1);
    expect([...kinds.values()].filter((k) => k === 'no live route')).toHaveLength(6);
    expect([...kinds.values()].filter((k) => k === 'advisory')).toHaveLength(8);
  });
});

describe('svc tools get', () => {
  it.each(getCases)('$name', async (c) => {
    await runCase(server, configHome(), c);
  });

  it('the unknown-name envelope is one JSON document with code and message', async () => {
    const r = await runCase(server, configHome(), {
      name: 'envelope',
      argv: ['--json', 'tools', 'get', 'nope'],
      routes: [TOOLS],
      code: 5,
    });
    const envelope = JSON.parse(r.stderr);
    expect(envelope.error.code).toBe('tool_not_found');
    expect(envelope.error.message).toContain('nope');
  });
});

import { describe, it } from 'vitest';
import { expectOptions, expectUsage, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('mcp serve options()', () => {
  const ok: OkRow[] = [
    ['no flags: every tool the token allows', ['mcp', 'serve'], { readOnly: false, tools: undefined }],
    ['--read-only', ['mcp', 'serve', '--read-only'], { readOnly: true, tools: undefined }],
    [
      '--tools, trimmed and without repeats',
      ['mcp', 'serve', '--tools', ' list_databases, plan_restore,list_databases'],
      { readOnly: false, tools: ['list_databases', 'plan_restore'] },
    ],
    ['--tools with --read-only', ['mcp', 'serve', '--read-only', '--tools', 'trigger_backup'], { readOnly: true, tools: ['trigger_backup'] }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));
  it.each(withGlobals([ok[1]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ['a tool that does not exist (a restore tool, say)', ['mcp', 'serve', '--tools', 'list_databases,restore_database'], /^No such tool: restore_database\.$/],
    ['a catalog tool name', ['mcp', 'serve', '--tools', 'svc.recovery.restore'], /^No such tool: svc\.recovery\.restore\.$/],
    ['--tools naming nothing', ['mcp', 'serve', '--tools', ' , '], /^--tools names no tool\.$/],
    ['an argument (commander)', ['mcp', 'serve', 'now'], /too many arguments for 'serve'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('mcp config options()', () => {
  const ok: OkRow[] = [
    ['claude', ['mcp', 'config', 'claude'], { client: 'claude', readOnly: false, tools: undefined }],
    ['codex with --read-only', ['mcp', 'config', 'codex', '--read-only'], { client: 'codex', readOnly: true, tools: undefined }],
    ['vscode with --tools', ['mcp', 'config', 'vscode', '--tools', 'list_databases'], { client: 'vscode', readOnly: false, tools: ['list_databases'] }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  const refused: UsageRow[] = [
    ['an unknown client', ['mcp', 'config', 'emacs'], /^No snippet for "emacs"\.$/],
    ['no client: the valid ones named', ['mcp', 'config'], /^Name a client: svc prints snippets for claude, cursor, vscode, codex\.$/],
    ['an unknown tool', ['mcp', 'config', 'cursor', '--tools', 'drill'], /^No such tool: drill\.$/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

import { describe, expect, it } from 'vitest';
import type { ToolCatalog } from '../../src/api/schemas/tools.js';
import { selectTools } from '../../src/mcp/select.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { fixture } from '../support/fixtures.js';

const catalog = fixture<ToolCatalog>('tools');
const ALL_SCOPES = ['databases:read', 'destinations:read', 'backups:trigger', 'restores:read', 'restores:write', 'evidence:read'];
const names = (s: Parameters<typeof selectTools>[1]) => selectTools(TOOLS, s).chosen.map((t) => t.name);
const withTrigger = (entry: Record<string, unknown>): ToolCatalog => ({
  ...catalog,
  tools: catalog.tools.map((t) => (t.name === 'svc.backup.trigger' ? { ...t, ...entry } : t)),
});

describe('selectTools', () => {
  it('every tool of section 10 under a full token and the fixture catalog', () => {
    expect(names({ scopes: ALL_SCOPES, catalog, readOnly: false, names: undefined })).toHaveLength(16);
  });

  it('the scope decides: no-scope tokens get the two tools that need none', () => {
    expect(names({ scopes: [], catalog, readOnly: false, names: undefined })).toEqual(['get_profile', 'list_agent_tools']);
  });

  it('--read-only wins over --tools: the write tool is skipped, and why', () => {
    const r = selectTools(TOOLS, { scopes: ALL_SCOPES, catalog, readOnly: true, names: ['trigger_backup', 'get_backup'] });
    expect(r.chosen.map((t) => t.name)).toEqual(['get_backup']);
    expect(r.skipped).toEqual([{ name: 'trigger_backup', why: '--read-only' }]);
  });

  it.each([
    ['advisory (callable false)', { callable: false }, "the service's catalog marks svc.backup.trigger advisory"],
    ['no live route (route scope null)', { routeScope: null }, "the service's catalog marks svc.backup.trigger no live route"],
    ['no live route (route scope "none")', { routeScope: 'none' }, "the service's catalog marks svc.backup.trigger no live route"],
    ['a route scope the token lacks', { routeScope: 'backups:admin' }, 'the token lacks backups:admin'],
  ])('trigger_backup is never registered where the catalog entry is %s', (_name, entry, why) => {
    const r = selectTools(TOOLS, { scopes: ALL_SCOPES, catalog: withTrigger(entry), readOnly: false, names: ['trigger_backup'] });
    expect(r).toEqual({ chosen: [], skipped: [{ name: 'trigger_backup', why }] });
  });

  it('trigger_backup is not registered where the catalog lacks svc.backup.trigger', () => {
    const bare = { ...catalog, tools: catalog.tools.filter((t) => t.name !== 'svc.backup.trigger') };
    expect(selectTools(TOOLS, { scopes: ALL_SCOPES, catalog: bare, readOnly: false, names: undefined }).skipped).toEqual([
      { name: 'trigger_backup', why: "the service's catalog has no svc.backup.trigger" },
    ]);
  });
});

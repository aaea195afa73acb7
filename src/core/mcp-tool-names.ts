/**
 * The tools of `svc mcp serve` (cli-contract 10), in the order tools/list shows them: a module of its
 * own, so `--tools` is checked (serve and config) without loading the tools. mcp/tools.ts has one
 * spec per name.
 */
export const TOOL_NAMES = [
  'get_profile',
  'list_databases',
  'get_database',
  'list_destinations',
  'get_destination',
  'list_backups',
  'get_backup',
  'list_evidence',
  'get_evidence',
  'get_restore',
  'get_recovery_summary',
  'get_recovery_candidate',
  'get_recovery_window_proof',
  'list_agent_tools',
  'trigger_backup',
  'plan_restore',
] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

import { UsageError } from '../../errors.js';
import { TOOL_NAMES } from '../../core/mcp-tool-names.js';

export interface ToolFlags {
  readOnly?: boolean;
  tools?: string;
}

export interface ToolChoice {
  readOnly: boolean;
  tools: string[] | undefined;
}

/** --read-only and --tools, checked before anything runs: an unknown tool name is exit 2. */
export function toolChoice(flags: ToolFlags): ToolChoice {
  if (flags.tools === undefined) return { readOnly: flags.readOnly === true, tools: undefined };
  const names = [
    ...new Set(
      flags.tools
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
  if (!names.length) throw new UsageError('--tools names no tool.', `Tools: ${TOOL_NAMES.join(', ')}.`);
  const unknown = names.filter((n) => !(TOOL_NAMES as readonly string[]).includes(n));
  if (unknown.length) throw new UsageError(`No such tool: ${unknown.join(', ')}.`, `Tools: ${TOOL_NAMES.join(', ')}.`);
  return { readOnly: flags.readOnly === true, tools: names };
}

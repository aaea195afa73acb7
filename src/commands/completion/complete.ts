import { RootCommand, type Command as TabCommand } from '@bomb.sh/tab';
import type { Command, Option } from 'commander';
import { buildProgram } from '../../program.js';
import { MAX_CONNECTIONS } from '../../restore/plan.js';
import { SHELLS } from './shells/names.js';
import { MCP_CLIENTS } from '../../core/mcp-clients.js';
import { OPERATION_METHODS, PATHS_WITHOUT_PARAMETERS } from '../../api/operation-routes.js';

export interface CompleteOptions {
  /** The command line after `svc`, as the shell split it; the last word is the one being completed ("" after a space). */
  words: string[];
}

export function options(words: string[]): CompleteOptions {
  return { words };
}

const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/**
 * Values of flags that take one of a closed set, by long name, where commander's own choices do not
 * list them (svc checks values in options(), not with commander's choices).
 */
const FLAG_VALUES: Record<string, readonly string[]> = {
  // restore create/run: parallel ranged download connections, 1..16 (cli-contract 7.4).
  connections: range(1, MAX_CONNECTIONS),
  // svc api -X: the methods of the API v1 operations.
  method: OPERATION_METHODS,
};

/** Values of positional arguments, by command path and argument name. */
const ARGUMENT_VALUES: Record<string, Record<string, readonly string[]>> = {
  completion: { shell: SHELLS },
  'mcp config': { client: MCP_CLIENTS },
  // The API v1 paths without an id in them (api-v1.md 4), from the operation table's routes.
  api: { path: PATHS_WITHOUT_PARAMETERS },
};

const offer = (values: readonly string[]) => (complete: (value: string, description: string) => void) => {
  for (const v of values) complete(v, '');
};

function addOptions(target: TabCommand, options: readonly Option[]): void {
  for (const o of options) {
    const name = o.long?.replace(/^--/, '');
    if (!name) continue;
    const alias = o.short?.replace(/^-/, '');
    if (!o.required && !o.optional) {
      // A flag without a value: tab reads a string third argument as its short alias.
      if (alias) target.option(name, o.description, alias);
      else target.option(name, o.description);
      continue;
    }
    // A handler, even one that offers nothing, tells tab the flag takes a value (the next word is not a command).
    target.option(name, o.description, offer(o.argChoices ?? FLAG_VALUES[name] ?? []), alias);
  }
}

/**
 * svc's whole command tree for tab (src/program.ts builds every group when given no argv):
 * commands and verbs with their descriptions, each command's flags plus the global ones (accepted
 * after the verb too, cli-contract 1), and the fixed values of flags and arguments. Hidden
 * commands (`complete`) are left out.
 */
export function completionTree(program: Command): RootCommand {
  const root = new RootCommand();
  const rootOptions = program.createHelp().visibleOptions(program);
  addOptions(root, rootOptions);
  const globals = rootOptions.filter((o) => o.long !== '--help' && o.long !== '--version');
  const walk = (cmd: Command, prefix: string): void => {
    for (const sub of cmd.createHelp().visibleCommands(cmd)) {
      const path = prefix ? `${prefix} ${sub.name()}` : sub.name();
      const node = root.command(path, sub.description());
      addOptions(node, [...sub.createHelp().visibleOptions(sub), ...globals]);
      for (const arg of sub.registeredArguments) {
        const values = arg.argChoices ?? ARGUMENT_VALUES[path]?.[arg.name()];
        node.argument(arg.name(), values ? offer(values) : undefined, arg.variadic);
      }
      walk(sub, path);
    }
  };
  walk(program, '');
  return root;
}

/**
 * What @bomb.sh/tab prints, as text: it writes its candidates with console.log (its only output),
 * and svc's output goes through the context's stdout.
 */
export function printed(write: () => void): string {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  try {
    write();
  } finally {
    console.log = log;
  }
  return lines.map((line) => `${line}\n`).join('');
}

const NO_HOST = { run: () => Promise.reject(new Error('completion never runs a command')) };

/**
 * Prints the candidates for the last word, then tab's directive line (":4", no file completion).
 * Only the group the finished words name gets its verbs built, as for a command line that runs: a
 * Tab press starts as fast as `svc --help` does.
 */
export function run({ words }: CompleteOptions, print: (text: string) => void): void {
  const tree = completionTree(buildProgram(NO_HOST, words.slice(0, -1)));
  // tab's parse() takes the array for its own (it pops the trailing empty word).
  print(printed(() => tree.parse([...words])));
}

/**
 * svc's command tree as the docs see it: every command of `buildProgram` (all groups built), read
 * through commander's public Help class, the same strings `--help` prints. docs/commands.md and
 * man/svc.1 are rendered from this and nothing else, so help, reference and man page cannot disagree.
 */
import type { Command, Help } from 'commander';
import { buildProgram } from '../../src/program.js';
import type { CommandHost } from '../../src/commands/shared/verb.js';

/** One line of an options or arguments list: what is typed, and what it means (defaults included, as help shows them). */
export interface Item {
  term: string;
  description: string;
}

export interface CommandDoc {
  /** ["restore", "drill"]; [] for svc itself. */
  path: string[];
  /** "svc restore drill [options] [databaseIds...]". */
  usage: string;
  description: string;
  arguments: Item[];
  /** Its own options, without -h/--help (listed once among the global options). */
  options: Item[];
  /** Example command lines from its help, as typed. */
  examples: string[];
  /** Paragraphs of its help's prose. */
  notes: string[];
  subcommands: CommandDoc[];
}

export interface Reference {
  root: CommandDoc;
  /** The root's options: the global ones, -V and -h included. */
  globalOptions: Item[];
}

/** Wide enough that no help prose is wrapped: the pages wrap it themselves. */
const UNWRAPPED = 1_000_000;

/** The tree is only read: a command that ran would be a bug here. */
const host: CommandHost = {
  run: () => Promise.reject(new Error('tools/docs reads the command tree; it runs no command')),
};

/**
 * What `addHelpText` adds to a command's help: the whole help as outputHelp() writes it, less the
 * part helpInformation() gives (usage, description, arguments, options, commands).
 */
function addedHelpText(cmd: Command): string {
  let whole = '';
  cmd.configureOutput({ writeOut: (s) => (whole += s), getOutHelpWidth: () => UNWRAPPED, getOutHasColors: () => false });
  cmd.outputHelp();
  const core = cmd.helpInformation();
  const at = whole.indexOf(core);
  if (at < 0) throw new Error(`the help of ${cmd.name()} does not hold its own helpInformation()`);
  return `${whole.slice(0, at)}\n${whole.slice(at + core.length)}`;
}

/** The examples ("Examples:" then "  $ <command>" lines, as shared/verb.ts examples() writes them) and prose paragraphs. */
function splitHelpText(text: string): { examples: string[]; notes: string[] } {
  const examples: string[] = [];
  const notes: string[] = [];
  let inExamples = false;
  for (const line of text.split('\n')) {
    if (line === 'Examples:') inExamples = true;
    else if (inExamples && line.startsWith('  $ ')) examples.push(line.slice(4));
    else if (line.trim() === '') inExamples = false;
    else notes.push(line.trim());
  }
  return { examples, notes };
}

function isHelpOption(helper: Help, cmd: Command, term: string): boolean {
  const help = helper.visibleOptions(cmd).find((o) => o.long === '--help');
  return help !== undefined && helper.optionTerm(help) === term;
}

function describe(cmd: Command, path: string[]): CommandDoc {
  const { examples, notes } = splitHelpText(addedHelpText(cmd));
  const helper = cmd.createHelp();
  const options = helper
    .visibleOptions(cmd)
    .map((o) => ({ term: helper.optionTerm(o), description: helper.optionDescription(o) }))
    .filter((o) => !isHelpOption(helper, cmd, o.term));
  return {
    path,
    usage: helper.commandUsage(cmd),
    description: helper.commandDescription(cmd),
    arguments: helper.visibleArguments(cmd).map((a) => ({ term: helper.argumentTerm(a), description: helper.argumentDescription(a) })),
    options: path.length === 0 ? [] : options,
    examples,
    // The root's prose is the one-line summary of ENVIRONMENT and EXIT_CODES, which the pages give whole.
    notes: path.length === 0 ? [] : notes,
    // commander's implicit `help` command is not one of svc's; hidden ones (`svc complete`) stay hidden.
    subcommands: helper
      .visibleCommands(cmd)
      .filter((c) => cmd.commands.includes(c))
      .map((c) => describe(c, [...path, c.name()])),
  };
}

/** Every command of svc, in help order. */
export function readReference(): Reference {
  const program = buildProgram(host, undefined, UNWRAPPED);
  const helper = program.createHelp();
  return {
    root: describe(program, []),
    globalOptions: helper.visibleOptions(program).map((o) => ({ term: helper.optionTerm(o), description: helper.optionDescription(o) })),
  };
}

/** The commands in reading order, svc itself first. */
export function allCommands(doc: CommandDoc): CommandDoc[] {
  return [doc, ...doc.subcommands.flatMap(allCommands)];
}

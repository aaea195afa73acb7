import { Command, Option } from 'commander';
import { registerApi } from './commands/api/index.js';
import { registerAuth } from './commands/auth/index.js';
import { registerBackups } from './commands/backups/index.js';
import { registerCompletion } from './commands/completion/index.js';
import { registerDatabases } from './commands/databases/index.js';
import { registerDestinations } from './commands/destinations/index.js';
import { registerEvidence } from './commands/evidence/index.js';
import { registerMcp } from './commands/mcp/index.js';
import { exampleBlock, examples, type CommandHost } from './commands/shared/verb.js';
import { registerProfile } from './commands/profile/index.js';
import { registerRecovery } from './commands/recovery/index.js';
import { registerRestore } from './commands/restore/index.js';
import { registerSandbox } from './commands/sandbox/index.js';
import { registerTools } from './commands/tools/index.js';
import { environmentSummary } from './environment.js';
import { exitCodeSummary } from './exit-codes.js';
import { wrapWords } from './output/terminal-text.js';
import { VERSION } from './version.js';

type Register = (command: Command, host: CommandHost) => void;
type Group = { name: string; description: string; register: Register; examples: string[] };

/**
 * The top-level commands in help order. A group's verbs are attached only when the command line
 * names that group (or cannot be read up front): `svc --help` needs just the names and
 * descriptions, and `svc databases list` never builds the other groups.
 */
const COMMANDS: Array<Group | { name: string; leaf: (program: Command, host: CommandHost) => void }> = [
  {
    name: 'auth',
    description: 'Log in, check and log out (tokens never go on the command line)',
    register: registerAuth,
    examples: ['svc auth login --base-url https://backup.example.com', 'svc auth status --all'],
  },
  { name: 'profile', leaf: registerProfile },
  {
    name: 'databases',
    description: 'Protected databases (created in the dashboard only)',
    register: registerDatabases,
    examples: ['svc databases list', 'svc databases get db_123'],
  },
  {
    name: 'destinations',
    description: 'Backup destinations (object storage; never shows credentials)',
    register: registerDestinations,
    examples: ['svc destinations list', 'svc destinations get dst_123'],
  },
  {
    name: 'backups',
    description: 'Backup jobs of a protected database',
    register: registerBackups,
    examples: ['svc backups list db_123', 'svc backups trigger db_123 --wait', 'svc backups get bj_123'],
  },
  {
    name: 'evidence',
    description: 'Evidence recorded about backups (artifact, integrity checks, audit events)',
    register: registerEvidence,
    examples: ['svc evidence list --database db_123', 'svc evidence get bj_123'],
  },
  {
    name: 'restore',
    description: 'Restore jobs, executed locally by this client',
    register: registerRestore,
    examples: ['svc restore create --backup bj_123 --target postgresql://localhost/restored', 'svc restore get rj_123 --watch'],
  },
  {
    name: 'recovery',
    description: 'Recovery summary, incident-time candidates and recovery-window proof',
    register: registerRecovery,
    examples: ['svc recovery summary db_123', 'svc recovery candidate db_123 --incident-time 2026-11-20T14:30:00Z'],
  },
  {
    name: 'tools',
    description: 'The external-agent tool catalog (getMcpToolCatalog)',
    register: registerTools,
    examples: ['svc tools list', 'svc tools get svc.backup.trigger'],
  },
  {
    name: 'mcp',
    description: 'Serve svc to AI agent clients as a local MCP server (stdio), and print their config snippets',
    register: registerMcp,
    examples: ['svc mcp config claude', 'svc mcp serve --read-only'],
  },
  { name: 'sandbox', leaf: registerSandbox },
  { name: 'api', leaf: registerApi },
  { name: 'completion', leaf: registerCompletion },
];

/** Global options that take a value (cli-contract 1): their value is not the command name. */
const VALUE_OPTIONS = new Set(['--base-url', '--timeout', '--max-retries', '--profile', '--jq']);

/**
 * Which groups to build for argv: none for a command line without a command (root help, version)
 * or with a single-verb command (always built), the one named by the first operand, or all of them
 * when that operand is anything else (`help`, a typo that deserves suggestions).
 */
export function groupsToBuild(argv: readonly string[] | undefined): 'all' | 'none' | string {
  if (!argv) return 'all';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return argv[i + 1] === undefined ? 'none' : 'all';
    if (arg.startsWith('-')) {
      if (VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    // `svc complete ...` (the completion scripts' entry point) builds its own program for the words it completes.
    if (arg === 'complete') return 'none';
    const named = COMMANDS.find((c) => c.name === arg);
    if (!named) return 'all';
    return 'leaf' in named ? 'none' : arg;
  }
  return 'none';
}

/**
 * The command whose help a bare command line asks for (cli-contract 4: bare `svc` and `svc <group>`
 * print their help on stdout and exit 0, as gh does): [] for the root, [group] for a group named
 * alone; undefined when argv asks for anything else.
 */
export function bareHelpPath(argv: readonly string[]): string[] | undefined {
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (['-h', '--help', '-V', '--version'].includes(arg)) return undefined;
    if (arg.startsWith('-')) {
      if (VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    operands.push(arg);
  }
  if (operands.length === 0) return [];
  const group = COMMANDS.find((c) => c.name === operands[0]);
  return operands.length === 1 && group && !('leaf' in group) ? [group.name] : undefined;
}

/**
 * The commander root with the global options of cli-contract 1, accepted before or after the subcommand.
 * With argv, only the group it names gets its verbs (see COMMANDS); without, every command is built.
 */
export function buildProgram(host: CommandHost, argv?: readonly string[], helpWidth = 80): Command {
  const program = new Command('svc')
    .description('Command-line client and client-local restore executor for the Backup Protection Service API v1')
    .version(VERSION, '-V, --version')
    .addOption(new Option('--base-url <url>', 'service root; /api/v1 is appended (env: SVC_BASE_URL)'))
    .option('--json', 'print exactly one JSON document on stdout')
    .option('--jq <expression>', 'print what this jq expression makes of the JSON document (implies --json; strings raw)')
    .option('--quiet', 'no progress, hints or warnings on stderr (errors still print)')
    .option('--verbose', 'one stderr line per HTTP exchange, never a secret (env: SVC_DEBUG=1)')
    .option('--timeout <seconds>', 'per-request timeout in seconds (env: SVC_TIMEOUT, default 30)')
    .option('--max-retries <n>', 'retries for network errors, timeouts, 429 and 5xx (default 4)')
    .option('--no-color', 'no colour (env: NO_COLOR)')
    .option('--profile <name>', 'which saved login (base URL and token) to use (env: SVC_PROFILE, default "default")')
    .showSuggestionAfterError()
    .addHelpText('after', () =>
      [
        exampleBlock(helpWidth, [
          'svc auth login --base-url https://backup.example.com',
          'svc databases list',
          'svc backups trigger db_123 --wait',
          'svc evidence get bj_123',
          'svc restore create --backup bj_123 --target postgresql://localhost/restored',
        ]),
        ...wrapWords(`Environment: ${environmentSummary()}.`, helpWidth),
        ...wrapWords(`Exit codes: ${exitCodeSummary()}.`, helpWidth),
        '',
      ].join('\n'),
    );

  const build = groupsToBuild(argv);
  for (const c of COMMANDS) {
    if ('leaf' in c) {
      c.leaf(program, host);
      continue;
    }
    const group = program
      .command(c.name)
      .description(c.description)
      .addHelpText('after', examples(...c.examples));
    if (build === 'all' || build === c.name) c.register(group, host);
  }
  withRequiredInUsage(program);
  return program;
}

/**
 * Usage lines that show what must be given ("<databaseId> --incident-time <iso8601> [options]"), for
 * every command of the tree: in the tree itself, so help, docs/commands.md and the man page agree.
 */
function withRequiredInUsage(cmd: Command): void {
  for (const sub of cmd.commands) withRequiredInUsage(sub);
  const required = cmd.options.filter((o) => o.mandatory).map((o) => o.flags.replace(/^-\w, /, ''));
  if (!required.length) return;
  const args = cmd.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  cmd.usage([...args, ...required, '[options]'].join(' '));
}

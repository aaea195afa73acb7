import type { Command } from 'commander';
import { examples, prose, type CommandHost } from '../shared/verb.js';

/** A completion verb: options() checks its arguments, run() prints through `print`; neither gets a Session. */
export interface LocalVerb<O> {
  options(args: string[]): O;
  run(opts: O, print: (text: string) => void): void;
}

/**
 * The action of a completion command. Unlike every other verb these skip the host (cli.ts), which
 * opens a Session: a Tab press must not load settings, the HTTP client or the keychain, and must
 * never call the service. They print through commander's output, which cli.ts points at the
 * context's stdout, as it does for --help.
 */
function local<O>(load: () => Promise<LocalVerb<O>>): (...actionArgs: unknown[]) => Promise<void> {
  return async (...actionArgs) => {
    const cmd = actionArgs[actionArgs.length - 1] as Command;
    const verb = await load();
    const opts = verb.options(cmd.args);
    const { writeOut } = cmd.configureOutput();
    if (!writeOut) throw new Error('commander has no output writer');
    verb.run(opts, writeOut);
  };
}

/**
 * `svc completion <shell>` prints svc's script for that shell (shells/); the script calls back
 * `svc complete -- <words>` on every Tab, with the words typed as separate arguments (never through
 * eval), a hidden command that takes the words as they are (options included) and prints the
 * candidates (@bomb.sh/tab's engine).
 */
export function registerCompletion(program: Command, _host: CommandHost): void {
  program
    .command('completion')
    .description('Print a shell completion script: commands, verbs, flags and fixed values (never calls the service)')
    // Optional for commander, so that a missing shell is options()' to refuse, naming the set.
    .argument('[shell]', 'bash, zsh, fish or powershell')
    .usage('[options] <shell>')
    .addHelpText(
      'after',
      prose(
        'The bash script works with or without the bash-completion package; the zsh one needs compinit to have run first (it calls compdef). Open a new shell afterwards.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        "echo 'source <(svc completion bash)' >> ~/.bashrc",
        "echo 'source <(svc completion zsh)' >> ~/.zshrc",
        'svc completion fish > ~/.config/fish/completions/svc.fish',
        'svc completion powershell | Out-String | Invoke-Expression   # in $PROFILE',
      ),
    )
    .action(local(() => import('./script.js')));

  program
    .command('complete', { hidden: true })
    .description('Completion candidates for the words after --, one per line (called by the completion scripts)')
    .argument('[words...]')
    // The words are a command line being typed: its flags, -h included, are data here.
    .helpOption(false)
    .allowUnknownOption()
    .action(local(() => import('./complete.js')));
}

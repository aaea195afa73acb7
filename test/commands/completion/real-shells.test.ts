/**
 * A Tab pressed in real shells, with the scripts `svc completion <shell>` prints, installed as its
 * help says. bash and zsh run at an interactive prompt in a pseudo-terminal, so the shell itself
 * splits the typed line into words as it does for a person; a hook around the script's completion
 * function writes what each Tab offers to a file. fish runs `complete -C`, its completion engine
 * given a command line. What is checked: what each Tab offers, and that nothing on the line is
 * run: a command substitution, backquotes, a redirection or a glob is a word to complete, never
 * shell code. (PowerShell is not on this machine: completion.test.ts checks its script's text.)
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, execaSync } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, cleanupBuiltCli, ensureBuilt, tempDir } from '../../support/built-cli.js';
import { LoopbackServer } from '../../support/loopback-server.js';
import { disposePtys, PtySession, ptySkipReason } from '../../support/pty.js';

const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const TOKEN = 'svc_test_completion_0123456789abcdef';
const server = new LoopbackServer();

let shimDir: string;
/** The shells' working directory: it holds one file, named `databases`, so a glob the shell expanded would show. */
let globDir: string;
/** Where a command run by a Tab would leave its mark. */
let marks: string;
/** A file a redirection run by a Tab would overwrite. */
let precious: string;

beforeAll(async () => {
  await ensureBuilt();
  await server.start();
  // The scripts call `svc` as the shell finds it on PATH: the built CLI under that name.
  shimDir = join(tempDir('path'), 'bin');
  mkdirSync(shimDir);
  writeFileSync(join(shimDir, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(shimDir, 'svc'), 0o755);
  globDir = tempDir('cwd');
  writeFileSync(join(globDir, 'databases'), '');
  marks = tempDir('marks');
  precious = join(marks, 'precious.json');
}, 240_000);

afterEach(() => disposePtys());

afterAll(async () => {
  await server.stop();
  cleanupBuiltCli();
});

function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv({ PATH: `${shimDir}:${process.env.PATH}`, SVC_BASE_URL: server.baseUrl, SVC_API_KEY: TOKEN, TERM: 'xterm', INPUTRC: '/dev/null', ...extra });
}

const COMMANDS = [
  'api',
  'auth',
  'backups',
  'completion',
  'databases',
  'destinations',
  'evidence',
  'help',
  'mcp',
  'profile',
  'recovery',
  'restore',
  'sandbox',
  'tools',
];
const ONE_TO_SIXTEEN = Array.from({ length: 16 }, (_, i) => String(i + 1));

/** Ordinary completion: groups, verbs, flags and fixed values. */
const ORDINARY: Array<[line: string, offers: string[]]> = [
  ['svc da', ['databases']],
  ['svc databases ', ['get', 'help', 'list']],
  ['svc databases list --li', ['--limit']],
  ['svc completion ', ['bash', 'fish', 'powershell', 'zsh']],
  ['svc --json api -X ', ['GET', 'POST']],
  ['svc restore create --connections ', ONE_TO_SIXTEEN],
];

/** Words the user quoted: the candidates still match what was typed. */
const QUOTED: Array<[line: string, offers: string[]]> = [
  ["svc completion 'ba", ['bash']],
  ['svc api "/d', ['/databases', '/destinations']],
  ['svc --profile "my prod" data', ['databases']],
  ["svc --profile 'my prod' data", ['databases']],
  ['svc --profile my\\ prod data', ['databases']],
];

type Shell = 'bash' | 'zsh' | 'fish';
/** A line typed, then a Tab: what it must offer, and a file that must not exist afterwards (or, for a redirection, must keep its text). */
type Row = { line: string; offers: string[]; leavesNo?: string };

/** Shell syntax in the line: each is a word like any other, and the Tab after it still completes. */
function hostile(shell: Shell): Row[] {
  const m = (name: string) => join(marks, `${shell}-${name}`);
  // Backquotes in bash and zsh; fish's command substitution is (...).
  const sub = shell === 'fish' ? `(touch ${m('sub')})` : `\`touch ${m('sub')}\``;
  const rows: Row[] = [
    { line: `svc --profile "$(touch ${m('quoted')})" data`, offers: ['databases'], leavesNo: m('quoted') },
    // The value of --profile, so the commands come next (bash calls no completion function for a
    // word typed after backquotes: the line ends there).
    { line: `svc --profile ${sub} `, offers: COMMANDS, leavesNo: m('sub') },
    { line: `svc databases list > ${precious} --j`, offers: ['--jq', '--json'], leavesNo: precious },
    // A glob: expanded in the working directory it would be the word `databases`, which offers its verbs.
    { line: 'svc * ', offers: [] },
  ];
  // In the word being completed; not in zsh, whose default Tab widget (expand-or-complete) expands
  // that word itself before any completion function runs.
  if (shell !== 'zsh') rows.push({ line: `svc api "$(touch ${m('current')})"`, offers: [], leavesNo: m('current') });
  return rows;
}

/** Every line a shell is given. */
function linesFor(shell: Shell): Row[] {
  // --connections=1: svc offers the values; bash and zsh complete after the `=`, fish the whole token.
  const flag = shell === 'fish' ? '--connections=' : '';
  const afterEquals = { line: 'svc restore create --connections=1', offers: ['1', ...ONE_TO_SIXTEEN.slice(9)].map((v) => flag + v) };
  return [...[...ORDINARY, ...QUOTED].map(([line, offers]) => ({ line, offers })), afterEquals, ...hostile(shell)];
}

/** Resolves with the file's text once it ends with `@@end`, the hook's last line. */
async function offered(file: string, screen: () => string): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (text.endsWith('@@end\n')) return [...new Set(text.split('\n').filter((l) => l && l !== '@@end'))].sort();
    if (Date.now() > deadline) throw new Error(`no completion was recorded in ${file} within 20 s; the terminal showed:\n${screen()}`);
    await sleep(20);
  }
}

/**
 * What the person types to install the script and, after it, a hook that records each Tab: it
 * calls the script's own completion function, then writes what it offered to $SVC_TEST_TABS/<n>.
 */
const BASH_HOOK = [
  'source <(svc completion bash)',
  'complete -p svc > "$SVC_TEST_TABS/registered"',
  `__svc_test_tab() { __svc_complete "$@"; printf '%s\\n' "\${COMPREPLY[@]}" @@end > "$SVC_TEST_TABS/$((++__svc_test_n))"; }`,
  'complete -F __svc_test_tab svc',
];
const SETUP: Record<'bash' | 'bash-plain' | 'zsh', string[]> = {
  bash: [`source ${BASH_COMPLETION}`, ...BASH_HOOK],
  // No bash-completion package (cli-contract 4, v5): the script splits the words itself.
  'bash-plain': BASH_HOOK,
  zsh: [
    // Emacs keys, whatever $EDITOR says: Ctrl-U discards the line.
    'bindkey -e',
    'autoload -Uz compinit && compinit -u -D',
    'source <(svc completion zsh)',
    'print -r -- $_comps[svc] > "$SVC_TEST_TABS/registered"',
    // compadd records the matches it adds; the calls that only ask (-O, -A, -D) pass through.
    'compadd() { if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi; local -a added; builtin compadd -O added "$@"; __svc_test_matches+=("${added[@]}"); builtin compadd "$@"; }',
    '__svc_test_tab() { local -a __svc_test_matches; _svc "$@"; print -rl -- "${__svc_test_matches[@]}" @@end > "$SVC_TEST_TABS/$((++__svc_test_n))"; }',
    'compdef __svc_test_tab svc',
  ],
};

const ARGV: Record<'bash' | 'bash-plain' | 'zsh', string[]> = {
  bash: ['bash', '--norc', '--noprofile', '-i'],
  'bash-plain': ['bash', '--norc', '--noprofile', '-i'],
  zsh: ['zsh', '-f', '-i'],
};

/** An interactive bash or zsh with the script installed: tab(line) types the line and a Tab, and returns what the Tab offered. */
async function prompt(shell: 'bash' | 'bash-plain' | 'zsh') {
  const tabs = tempDir('tabs');
  const session = await PtySession.command(ARGV[shell], { env: shellEnv({ SVC_TEST_TABS: tabs }), cwd: globDir, cols: 250 });
  // The quotes keep the typed command's echo from matching: only its output reads @@ready.
  for (const line of [...SETUP[shell], "echo @@re''ady"]) session.type(`${line}\r`);
  await session.waitForText('@@ready');
  let n = 0;
  return {
    registered: () => readFileSync(join(tabs, 'registered'), 'utf8'),
    screen: () => session.screen(),
    async tab(line: string): Promise<string[]> {
      session.type(`${line}\t`);
      const offers = await offered(join(tabs, String(++n)), () => session.screen());
      // Ctrl-U: the line is discarded; the next starts at an empty prompt.
      session.type('\x15');
      return offers;
    },
    close: () => session.dispose(),
  };
}

const installed = (command: string) => execaSync('sh', ['-c', `command -v ${command}`], { reject: false }).exitCode === 0;
const ptySkip = ptySkipReason();
if (ptySkip) console.warn(`real-shells.test.ts: the bash and zsh prompts are skipped: ${ptySkip}`);
/** Runs where the shell is installed, and always under CI (.ci/run installs them), where a missing one fails. */
const runs: Record<'bash' | 'zsh' | 'fish', boolean> = {
  bash: (installed('bash') && existsSync(BASH_COMPLETION)) || process.env.CI === 'true',
  zsh: installed('zsh') || process.env.CI === 'true',
  fish: installed('fish') || process.env.CI === 'true',
};

describe.skipIf(!!ptySkip)('a Tab at a real prompt', () => {
  for (const shell of ['bash', 'zsh'] as const) {
    it.runIf(runs[shell])(`${shell}: offers what svc complete offers, runs nothing the line holds`, async () => {
      expect(installed(shell), `${shell} is missing: apt-get install ${shell}`).toBe(true);
      if (shell === 'bash') expect(existsSync(BASH_COMPLETION), `${BASH_COMPLETION} is missing: apt-get install bash-completion`).toBe(true);
      writeFileSync(precious, 'keep');
      const p = await prompt(shell);
      expect(p.registered()).toBe(shell === 'bash' ? 'complete -F __svc_complete svc\n' : '_svc\n');
      for (const { line, offers, leavesNo } of linesFor(shell)) {
        expect.soft(await p.tab(line), line).toEqual([...offers].sort());
        if (leavesNo === precious) expect.soft(readFileSync(precious, 'utf8'), line).toBe('keep');
        else if (leavesNo) expect.soft(existsSync(leavesNo), `${line} ran a command`).toBe(false);
      }
      await p.close();
      // A Tab never calls the service, whatever the line holds.
      expect(server.exchanges).toEqual([]);
    });
  }

  it.runIf(installed('bash') || process.env.CI === 'true')(
    'bash without the bash-completion package: the same offers, and no "command not found" on any Tab',
    async () => {
      writeFileSync(precious, 'keep');
      const p = await prompt('bash-plain');
      expect(p.registered()).toBe('complete -F __svc_complete svc\n');
      for (const { line, offers, leavesNo } of linesFor('bash')) {
        expect.soft(await p.tab(line), line).toEqual([...offers].sort());
        if (leavesNo === precious) expect.soft(readFileSync(precious, 'utf8'), line).toBe('keep');
        else if (leavesNo) expect.soft(existsSync(leavesNo), `${line} ran a command`).toBe(false);
      }
      expect(p.screen()).not.toMatch(/command not found|_get_comp_words_by_ref/);
      await p.close();
      expect(server.exchanges).toEqual([]);
    },
  );
});

/** A word as a single-quoted bash string. */
const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

describe('the bash script removes quotes as bash does, and expands nothing', () => {
  /** Words as typed: bash's own quote removal (the word pasted into a printf) is what __svc_unquote must give. */
  const TYPED = [
    `'a b'`,
    `"a b"`,
    `a\\ b`,
    `"a\\"b"`,
    `"a\\\\b"`,
    `"a\\nb"`,
    `'a\\nb'`,
    `'it'\\''s'`,
    `pre"mid"'post'`,
    `\\'`,
    `"$"`,
    `--profile=prod`,
    `''`,
    `"/d`,
    `'ba`,
  ];
  /** Words bash would expand: unquoted, they stay exactly as typed. */
  const LITERAL: Array<[typed: string, word: string]> = [
    ['$HOME', '$HOME'],
    ['"$(touch x)"', '$(touch x)'],
    ['`touch x`', '`touch x`'],
    ['*', '*'],
    ["'$(touch x)'", '$(touch x)'],
    ['~', '~'],
  ];

  it.runIf(runs.bash)('as bash itself reads the word, and with $, backquotes, globs and ~ kept', async () => {
    const unquoted = (words: string[]) => words.map((w) => `__svc_unquote ${shellQuote(w)}; printf '%s\\0' "$REPLY"`).join('\n');
    // An unclosed quote (the word being typed) is closed for bash's own reading.
    const asBash = TYPED.map((w) => `printf '%s\\0' ${/^(["'])[^"']*$/.test(w) ? w + w[0] : w}`).join('\n');
    const r = await execa(
      'bash',
      ['--norc', '--noprofile', '-c', `source <(svc completion bash)\n${unquoted(TYPED)}\n${asBash}\n${unquoted(LITERAL.map(([t]) => t))}`],
      {
        env: shellEnv(),
        extendEnv: false,
      },
    );
    expect(r.stderr).toBe('');
    const out = r.stdout.split('\0');
    expect(out.slice(0, TYPED.length)).toEqual(out.slice(TYPED.length, 2 * TYPED.length));
    expect(out.slice(2 * TYPED.length, -1)).toEqual(LITERAL.map(([, word]) => word));
  });
});

describe('fish: complete -C with the script in ~/.config/fish/completions', () => {
  it.runIf(runs.fish)('offers what svc complete offers, runs nothing the line holds', async () => {
    expect(installed('fish'), 'fish is missing: apt-get install fish').toBe(true);
    writeFileSync(precious, 'keep');
    const env = shellEnv();
    // As the help says: svc completion fish > ~/.config/fish/completions/svc.fish (fish loads it on the first Tab).
    const completions = join(env.XDG_CONFIG_HOME!, 'fish', 'completions');
    mkdirSync(completions, { recursive: true });
    const script = await execa('svc', ['completion', 'fish'], { env, extendEnv: false });
    writeFileSync(join(completions, 'svc.fish'), `${script.stdout}\n`);
    const rows = linesFor('fish');
    const r = await execa('fish', ['-c', 'for line in $argv; complete -C $line; echo @@end; end', ...rows.map((row) => row.line)], {
      env,
      extendEnv: false,
      cwd: globDir,
      reject: false,
      stripFinalNewline: false,
    });
    expect(r.stderr).toBe('');
    const answers = r.stdout.split('@@end\n').map((block) =>
      block
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]!)
        .sort(),
    );
    rows.forEach(({ line, offers, leavesNo }, i) => {
      expect.soft(answers[i], line).toEqual([...offers].sort());
      if (leavesNo === precious) expect.soft(readFileSync(precious, 'utf8'), line).toBe('keep');
      else if (leavesNo) expect.soft(existsSync(leavesNo), `${line} ran a command`).toBe(false);
    });
    expect(answers).toHaveLength(rows.length + 1);
    expect(server.exchanges).toEqual([]);
  });
});

/**
 * The built CLI's completion as shells use it: the bash script sourced in a real bash, and the
 * `svc complete --` entry point it calls back on each Tab. Also what a Tab loads: never the HTTP
 * client, the session or the keychain.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, cleanupBuiltCli, ensureBuilt, spawnSvc, tempDir } from '../../support/built-cli.js';
import { closedPort, LoopbackServer } from '../../support/loopback-server.js';

const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const TOKEN = 'svc_test_completion_0123456789abcdef';

let shimDir: string;
const server = new LoopbackServer();

beforeAll(async () => {
  await ensureBuilt();
  await server.start();
  // The scripts call `svc` as the shell finds it on PATH: the built CLI under that name.
  shimDir = join(tempDir('path'), 'bin');
  mkdirSync(shimDir);
  writeFileSync(join(shimDir, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(shimDir, 'svc'), 0o755);
}, 240_000);

afterAll(async () => {
  await server.stop();
  cleanupBuiltCli();
});

function bash(script: string) {
  return execa('bash', ['--norc', '--noprofile', '-c', script], {
    env: cleanEnv({ PATH: `${shimDir}:${process.env.PATH}`, SVC_BASE_URL: server.baseUrl, SVC_API_KEY: TOKEN }),
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
  });
}

/** Sets up the COMP_* variables bash sets on a Tab at the end of `line`, calls the completion function, prints COMPREPLY. */
const TAB = `
tab() {
  COMP_LINE="$1"; COMP_POINT=\${#COMP_LINE}
  read -ra COMP_WORDS <<< "$COMP_LINE"
  [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  # compopt complains outside a real completion; the candidates are what counts.
  __svc_complete 2>/dev/null
  printf '%s|' "\${COMPREPLY[@]}"; echo
}`;

describe('svc completion bash, in bash', () => {
  it('sourcing the script registers the completion function for svc', async () => {
    const r = await bash('source <(svc completion bash) && complete -p svc');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('complete -F __svc_complete svc\n');
    expect(r.exitCode).toBe(0);
  });

  const haveBashCompletion = existsSync(BASH_COMPLETION);
  // The script calls _get_comp_words_by_ref, from the bash-completion package (as every cobra-style script does).
  it.runIf(haveBashCompletion || process.env.CI === 'true')('a Tab after `svc da` and after `svc databases ` (needs bash-completion)', async () => {
    expect(existsSync(BASH_COMPLETION), `${BASH_COMPLETION} is missing: apt-get install bash-completion`).toBe(true);
    const r = await bash(`source ${BASH_COMPLETION}\nsource <(svc completion bash)\n${TAB}
tab "svc da"
tab "svc databases "
tab "svc databases list --li"
tab "svc completion "
tab "svc --json api -X "`);
    expect(r.stdout).toBe(['databases|', 'list|get|help|', '--limit|', 'bash|zsh|fish|powershell|', 'GET|POST|', ''].join('\n'));
    expect(server.exchanges).toEqual([]);
  });
});

describe('svc complete -- (the entry point the scripts call)', () => {
  it('prints the candidates and the directive line', async () => {
    const r = await spawnSvc(['complete', '--', 'databases', ''], { env: cleanEnv() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('list\tList protected databases (listDatabases)\nget\tShow one protected database (getDatabase)\nhelp\tdisplay help for command\n:4\n');
  });

  it('works with no base URL, token or config at all', async () => {
    const r = await spawnSvc(['complete', '--', 'da'], { env: cleanEnv() });
    expect(r.stdout).toBe('databases\tProtected databases (created in the dashboard only)\n:4\n');
  });
});

describe('what a run loads', () => {
  let hooks: string;
  beforeAll(() => {
    const dir = tempDir('hooks');
    // Records every module the process loads (module.register: Node 20.6+), in a file named by the environment.
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.SVC_TEST_MODULE_LOG, url + '\\n');
  return next(url, context);
}
`,
    );
    hooks = join(dir, 'register.mjs');
    writeFileSync(hooks, `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${join(dir, 'hooks.mjs')}`).href)});\n`);
  });

  async function loaded(args: string[], env: Record<string, string>): Promise<{ modules: string[]; code: number | undefined }> {
    const log = join(tempDir('modules'), 'loaded.txt');
    writeFileSync(log, '');
    const r = await execa(process.execPath, ['--import', hooks, BIN, ...args], {
      env: cleanEnv({ ...env, SVC_TEST_MODULE_LOG: log }),
      extendEnv: false,
      reject: false,
    });
    return { modules: readFileSync(log, 'utf8').split('\n').filter(Boolean), code: r.exitCode };
  }

  /** The chunks and packages of the HTTP client, the session and the keychain (tools/bundle.mjs names chunks after their source file). */
  const FORBIDDEN = /\/chunks\/(?:session|undici|keychain|token-store)-[\w-]+\.mjs$|\/@napi-rs\/keyring\/|\/keytar\//;

  it('completing loads neither the session, the HTTP client nor the keychain, and sends nothing', async () => {
    const env = { SVC_BASE_URL: server.baseUrl, SVC_API_KEY: TOKEN };
    const { modules, code } = await loaded(['complete', '--', 'databases', ''], env);
    expect(code).toBe(0);
    expect(modules.some((m) => /\/chunks\/complete-[\w-]+\.mjs$/.test(m))).toBe(true);
    expect(modules.filter((m) => FORBIDDEN.test(m))).toEqual([]);
    const script = await loaded(['completion', 'zsh'], env);
    expect(script.modules.filter((m) => FORBIDDEN.test(m))).toEqual([]);
    expect(server.exchanges).toEqual([]);
  });

  it('(the check sees them when a command does load them)', async () => {
    const { modules } = await loaded(['profile', '--max-retries', '0'], { SVC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, SVC_API_KEY: TOKEN });
    expect(modules.filter((m) => FORBIDDEN.test(m)).map((m) => m.replace(/^.*\/chunks\/(\w+)-.*$/, '$1')).sort()).toEqual(['session', 'undici']);
  });

  it('jq (output/jq.ts, which requires jq-web) loads only with --jq', async () => {
    const env = { SVC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, SVC_API_KEY: TOKEN };
    const jqChunk = (modules: string[]) => modules.some((m) => /\/chunks\/jq-[\w-]+\.mjs$/.test(m));
    expect(jqChunk((await loaded(['profile', '--json', '--max-retries', '0'], env)).modules)).toBe(false);
    expect(jqChunk((await loaded(['profile', '--jq', '.profile', '--max-retries', '0'], env)).modules)).toBe(true);
  });
});

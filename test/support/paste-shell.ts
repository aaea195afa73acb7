/**
 * A printed command pasted into a real POSIX shell (`sh -c`, dash on Debian), with a stub `svc` (and
 * `psql`, `dropdb`, ...) first on PATH that records the argument vector it was given, one file per
 * run: what a person who copies svc's output runs (cli-contract 7.16 c). The real PATH follows, so
 * an injected `touch` would find its program and leave the marker file the tests look for.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

export interface Pasted {
  /** Each stubbed program run, in order: its name and arguments. */
  runs: Array<{ program: string; args: string[] }>;
  exitCode: number | undefined;
  stderr: string;
}

export class PasteShell {
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-paste-'));
  /** A file an injected command would create: it must never exist. */
  readonly marker = join(this.dir, 'injected');
  readonly #bin = join(this.dir, 'bin');
  readonly #log = join(this.dir, 'log');

  constructor(programs: string[] = ['svc']) {
    for (const d of [this.#bin, this.#log]) mkdirSync(d);
    for (const program of programs) {
      const stub = join(this.#bin, program);
      writeFileSync(stub, `#!/bin/sh\nf="${this.#log}/$(date +%s%N)-$$"\nprintf '%s\\0' "${program}" "$@" > "$f"\n`);
      chmodSync(stub, 0o755);
    }
  }

  /** Hostile text that runs `touch <marker>` wherever a shell gets to read it as code. */
  get payloads(): Record<string, string> {
    const m = this.marker;
    return {
      semicolon: `rw_usr_1;touch\${IFS}${m};#`,
      substitution: `rw_$(touch ${m})`,
      backquotes: `rw_\`touch ${m}\``,
      quotes: `rw_'";touch ${m};'"`,
      newline: `rw_1\ntouch ${m}`,
      dash: '--in-place',
      unicode: 'rw_ünï_😀',
      ansi: 'rw_\u001b]0;pwned\u0007\u001b[31mred',
    };
  }

  async paste(command: string): Promise<Pasted> {
    for (const f of readdirSync(this.#log)) rmSync(join(this.#log, f));
    const r = await execa('sh', ['-c', command], { env: { PATH: `${this.#bin}:${process.env.PATH}` }, extendEnv: false, reject: false, stdin: 'ignore' });
    const runs = readdirSync(this.#log)
      .sort()
      .map((f) => {
        const [program = '', ...args] = readFileSync(join(this.#log, f), 'utf8').split('\0').slice(0, -1);
        return { program, args };
      });
    return { runs, exitCode: r.exitCode, stderr: String(r.stderr) };
  }

  get injected(): boolean {
    return existsSync(this.marker);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

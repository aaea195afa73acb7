/**
 * The built CLI under a real pseudo-terminal, for what only a terminal shows: the confirmation
 * prompt (stdin and stderr are TTYs, clack puts the terminal in raw mode), Ctrl-C typed as a key
 * rather than sent as a signal, and the terminal going away (closed window, dropped SSH), which the
 * kernel reports to svc as SIGHUP. Python's pty module does the terminal work (pty-run.py, next to
 * this file): no native npm module to build.
 *
 * The test gets svc's own pid (the wrapper execs it in place), so it can signal svc itself. Every
 * session is reaped: by the wrapper while it lives, by the kernel's parent-death signal otherwise,
 * and disposePtys() in afterEach kills whatever a failed test left running.
 */
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { execa, execaSync, type ResultPromise } from 'execa';
import { BIN, ROOT } from './built-cli.js';

const DRIVER = fileURLToPath(new URL('./pty-run.py', import.meta.url));
const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p)) ?? 'python3';

/** Why pty tests cannot run here, or undefined; under CI nothing may skip, so a missing python3 fails there. */
export function ptySkipReason(env: Record<string, string | undefined> = process.env): string | undefined {
  if (env.CI && env.CI !== 'false' && env.CI !== '0') return undefined;
  return execaSync(PYTHON, ['-c', 'import pty'], { reject: false }).exitCode === 0 ? undefined : `no python3 with the pty module (${PYTHON})`;
}

export interface PtyOptions {
  /** Exactly svc's environment (undefined values are left out). */
  env: Record<string, string | undefined>;
  rows?: number;
  cols?: number;
  /** The wrapper (and with it svc) is killed after this long; default 60 s. */
  timeoutMs?: number;
  /** Another node binary; default the one running the tests. */
  node?: string;
  /** The working directory; default the repository root. */
  cwd?: string;
}

export interface PtyResult {
  /** svc's exit code, or undefined if a signal killed it. */
  exitCode: number | undefined;
  /** The signal that killed svc, if one did. */
  signal: NodeJS.Signals | undefined;
  /** Everything the terminal showed, escape sequences and carriage returns removed. */
  screen: string;
  /** The same, raw bytes as text. */
  raw: string;
}

function signalName(n: number): NodeJS.Signals {
  return (Object.entries(constants.signals).find(([, number]) => number === n)?.[0] ?? `SIG${n}`) as NodeJS.Signals;
}

function plain(raw: string): string {
  return stripVTControlCharacters(raw).replaceAll('\r', '');
}

export class PtySession {
  /** svc's own pid. */
  readonly pid: number;
  /** Settles once svc has exited and been reaped. */
  readonly exited: Promise<PtyResult>;
  #raw = '';
  #closed = false;
  readonly #wrapper: ResultPromise;
  readonly #listeners = new Set<() => void>();

  private constructor(wrapper: ResultPromise, pid: number, control: Promise<string>, early: string) {
    this.#wrapper = wrapper;
    this.pid = pid;
    this.#raw = early;
    wrapper.stdout!.on('data', (chunk: string) => {
      this.#raw += chunk;
      for (const l of this.#listeners) l();
    });
    this.exited = control.then((stderr) => {
      const m = /^@@pty (exit|signal) (\d+)$/m.exec(stderr);
      if (!m) throw new Error(`the pty wrapper ended without reporting svc's exit:\n${stderr}`);
      const n = Number(m[2]);
      return m[1] === 'exit'
        ? { exitCode: n, signal: undefined, screen: this.screen(), raw: this.#raw }
        : { exitCode: undefined, signal: signalName(n), screen: this.screen(), raw: this.#raw };
    });
    // Nobody may be left waiting on a session that ended: wake the text waiters.
    void this.exited
      .finally(() => {
        for (const l of this.#listeners) l();
      })
      .catch(() => {});
  }

  /** Starts `node bin/svc ...args` in a new terminal; resolves once svc runs, with its pid. */
  static start(args: string[], opts: PtyOptions): Promise<PtySession> {
    return PtySession.command([opts.node ?? process.execPath, BIN, ...args], opts);
  }

  /** Starts any command in a new terminal (an interactive shell, say); resolves once it runs, with its pid. */
  static async command(argv: string[], opts: PtyOptions): Promise<PtySession> {
    const wrapper = execa(PYTHON, [DRIVER, String(opts.rows ?? 24), String(opts.cols ?? 100), ...argv], {
      cwd: opts.cwd ?? ROOT,
      env: opts.env,
      extendEnv: false,
      reject: false,
      stdin: 'pipe',
      // Both read here, as they come: the screen, and the wrapper's control lines.
      buffer: false,
      timeout: opts.timeoutMs ?? 60_000,
      // SIGTERM: the wrapper kills svc's process group and reaps it before it leaves.
      killSignal: 'SIGTERM',
      forceKillAfterDelay: 3_000,
    });
    wrapper.stdin!.on('error', () => {});
    // Decoded as a stream: a character split across two reads stays one character.
    wrapper.stdout!.setEncoding('utf8');
    wrapper.stderr!.setEncoding('utf8');
    let early = '';
    const collectEarly = (chunk: string) => (early += chunk);
    wrapper.stdout!.on('data', collectEarly);
    let stderr = '';
    const pid = await new Promise<number>((resolve, reject) => {
      wrapper.stderr!.on('data', (chunk: string) => {
        stderr += chunk;
        const m = /^@@pty pid (\d+)$/m.exec(stderr);
        if (m) resolve(Number(m[1]));
      });
      void wrapper.then((r) => reject(new Error(`the pty wrapper ended before svc started (exit ${r.exitCode}):\n${stderr}`)));
    });
    const control = wrapper.then((r) => `${stderr}${r.signal ? `\n(wrapper killed by ${r.signal})` : ''}`);
    wrapper.stdout!.off('data', collectEarly);
    const session = new PtySession(wrapper, pid, control, early);
    live.add(session);
    void session.exited.finally(() => live.delete(session)).catch(() => {});
    return session;
  }

  /** What the terminal has shown so far, without escape sequences. */
  screen(): string {
    return plain(this.#raw);
  }

  /** Resolves with the screen once `pattern` shows on it; rejects if svc exits first or time runs out. */
  waitForText(pattern: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const matches = () => (typeof pattern === 'string' ? this.screen().includes(pattern) : pattern.test(this.screen()));
    return new Promise((resolve, reject) => {
      let ended = false;
      const onEnd = () => {
        ended = true;
        check();
      };
      void this.exited.then(onEnd, onEnd);
      const check = () => {
        if (matches()) return done(() => resolve(this.screen()));
        if (ended) return done(() => reject(new Error(`svc exited before ${String(pattern)} showed; the terminal showed:\n${this.screen()}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`${String(pattern)} did not show within ${timeoutMs} ms; the terminal showed:\n${this.screen()}`))),
        timeoutMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        settle();
      };
      this.#listeners.add(check);
      check();
    });
  }

  /** Types at the keyboard: "\x03" is Ctrl-C, "\r" is Enter. */
  type(keys: string): void {
    if (this.#closed) throw new Error('the terminal is closed');
    this.#wrapper.stdin!.write(keys);
  }

  /** Closes the terminal (its master side): the kernel hangs it up and sends svc SIGHUP. */
  hangUp(): void {
    this.#closed = true;
    this.#wrapper.stdin!.end();
  }

  /** Sends `signal` to svc itself (not to the wrapper, not to svc's children). */
  kill(signal: NodeJS.Signals): void {
    process.kill(this.pid, signal);
  }

  /** Ends the session whatever its state: svc and its process group killed, everything reaped. */
  async dispose(): Promise<void> {
    if (this.#wrapper.exitCode === null && this.#wrapper.signalCode === null) this.#wrapper.kill('SIGTERM');
    await this.#wrapper;
    await this.exited.catch(() => {});
  }
}

const live = new Set<PtySession>();

/**
 * For afterEach: kills and reaps every session a test left running (a failed assertion, a timeout),
 * and shows what its terminal showed, which is usually why.
 */
export async function disposePtys(): Promise<void> {
  const left = [...live];
  live.clear();
  for (const s of left) console.warn(`pty: svc (pid ${s.pid}) was still running at the end of the test and is killed; its terminal showed:\n${s.screen()}`);
  await Promise.all(left.map((s) => s.dispose()));
}

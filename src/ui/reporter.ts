import type { Writable } from 'node:stream';
import { plain, wrapWords } from '../output/terminal-text.js';
import { heartbeat } from './heartbeat.js';
import type { Paint, Style } from './style.js';

export interface Spinner {
  update(text: string): void;
  /** Ends with ✓ (or "ok"), the text and the elapsed time. */
  succeed(text: string): void;
  /** Ends with ✗ (or "failed"), the text and the elapsed time. */
  fail(text: string): void;
}

export interface ReporterOptions {
  quiet: boolean;
  /** Spinners and bars may redraw (stderr is a terminal, not CI, not --quiet). */
  animated: boolean;
  paint: Paint;
  /** The terminal draws ✓ and ✗. */
  unicode: boolean;
  /** Columns of stderr's terminal, to wrap notes at word boundaries; undefined when not a terminal. */
  width?: number;
}

/** "8.1s", "2m05s": elapsed time as a person reads it. */
export function elapsed(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Everything that is not a result goes to stderr through here: notes, warnings, hints, progress.
 * --quiet silences all of it; errors are printed by cli.ts, never through this. Service text in a
 * message is stripped of control characters here (cli-contract 4).
 */
export class Reporter {
  readonly paint: Paint;

  constructor(
    private readonly stderr: Writable,
    private readonly opts: ReporterOptions,
  ) {
    this.paint = opts.paint;
  }

  get isAnimated(): boolean {
    return this.opts.animated;
  }

  #lines(message: string): string[] {
    const text = plain(message);
    return this.opts.width === undefined ? [text] : wrapWords(text, this.opts.width);
  }

  info(message: string, style?: Style): void {
    if (this.opts.quiet) return;
    for (const line of this.#lines(message)) this.stderr.write(`${style ? this.paint(style, line) : line}\n`);
  }

  warn(message: string): void {
    if (!this.opts.quiet) this.stderr.write(`${this.paint('yellow', 'warning:')} ${plain(message)}\n`);
  }

  /** The --verbose exchange lines; written even with --quiet, since the user asked for both. */
  debug(message: string): void {
    this.stderr.write(`${this.paint('dim', plain(message))}\n`);
  }

  #outcome(ok: boolean): string {
    if (this.opts.unicode) return this.paint(ok ? 'green' : 'red', ok ? '✓' : '✗');
    return this.paint(ok ? 'green' : 'red', ok ? 'ok' : 'failed');
  }

  /**
   * An ora spinner on a terminal; otherwise plain lines, one per distinct state, then the outcome,
   * and a heartbeat line whenever a minute passes with nothing said (a phase that long must not look
   * dead to CI); nothing with --quiet. With `elapsed`, a spinner on a terminal shows the time so far.
   */
  async spinner(text: string, opts: { elapsed?: boolean } = {}): Promise<Spinner> {
    const started = performance.now();
    const took = () => elapsed(performance.now() - started);
    /** The last line of a spinner: ✓ or ✗, the text and the time it took. */
    const end = (ok: boolean, t: string) => ({ symbol: this.#outcome(ok), text: `${plain(t)} (${took()})` });
    if (this.opts.quiet) return { update() {}, succeed() {}, fail() {} };
    if (!this.opts.animated) {
      let last = '';
      const line = (t: string) => {
        if (t !== last) {
          this.stderr.write(`${plain(t)}\n`);
          beat.touch();
        }
        last = t;
      };
      const beat = heartbeat(() => this.stderr.write(`${plain(last)} (still running, ${took()})\n`));
      line(text);
      const persist = (ok: boolean, t: string) => {
        beat.stop();
        const ending = end(ok, t);
        this.stderr.write(`${ending.symbol} ${ending.text}\n`);
      };
      return { update: line, succeed: (t) => persist(true, t), fail: (t) => persist(false, t) };
    }
    const { default: ora } = await import('ora');
    let current = plain(text);
    const shown = () => (opts.elapsed ? `${current} (${took()})` : current);
    const spin = ora({ text: shown(), stream: this.stderr as NodeJS.WritableStream, discardStdin: false }).start();
    const ticker = opts.elapsed ? setInterval(() => (spin.text = shown()), 1000) : undefined;
    ticker?.unref();
    const stop = (ok: boolean, t: string) => {
      clearInterval(ticker);
      spin.stopAndPersist(end(ok, t));
    };
    return {
      update: (t) => {
        current = plain(t);
        spin.text = shown();
      },
      succeed: (t) => stop(true, t),
      fail: (t) => stop(false, t),
    };
  }
}

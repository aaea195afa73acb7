import type { Writable } from 'node:stream';
import { shellLines } from '../output/shell-lines.js';
import { displayWidth, plain, truncate, wrapWords } from '../output/terminal-text.js';
import { heartbeat } from './heartbeat.js';
import type { Paint, Style } from './style.js';

/** A spinner's text, or one made at each frame from the elapsed time ("9.1s"), fitted by its maker. */
export type Frame = string | ((time: string) => string);

export interface Spinner {
  update(text: Frame): void;
  /**
   * Ends with ✓ (or "ok"), the text and the elapsed time. `detail` (a digest, say) follows the
   * text after a comma, but on a terminal only where it fits whole: the final screen shows it anyway.
   */
  succeed(text: string, detail?: string): void;
  /** Ends with ✗ (or "failed"), the text and the elapsed time. */
  fail(text: string): void;
}

/**
 * The columns of a spinner's line that are not its text: ora's frame and a space before it, and two
 * kept free after it, where the terminal echoes a typed Ctrl-C (`^C`). A line that filled the width
 * would wrap on that echo, and ora, clearing one line, would leave the frame frozen above the next.
 */
export const SPINNER_COLUMNS = 4;

export interface ReporterOptions {
  quiet: boolean;
  /** Spinners and bars may redraw (stderr is a terminal, not CI, not --quiet). */
  animated: boolean;
  paint: Paint;
  /** The terminal draws ✓ and ✗. */
  unicode: boolean;
  /** Columns of stderr's terminal, to wrap notes at word boundaries; undefined when not a terminal. */
  width?: number;
  /**
   * Spinners only, each cleared when it ends; notes and warnings unsaid: the figures of a run whose
   * caller says the rest in its own lines (a drill's restore on a terminal).
   */
  spinnersOnly?: boolean;
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

  /** Columns of stderr's terminal; undefined when it is not one. */
  get width(): number | undefined {
    return this.opts.width;
  }

  /** On a terminal, lines that fit it, broken at spaces; later lines of a paragraph indented by `hanging` more. */
  #lines(text: string, hanging = ''): string[] {
    return this.opts.width === undefined ? [text] : wrapWords(text, this.opts.width, hanging);
  }

  /**
   * A note. An indented `key:  value` line (a glossary's) wraps with a hanging indent under its
   * value, as a key/value block does (cli-contract 4); other lines under their own indent.
   */
  info(message: string, style?: Style): void {
    if (this.opts.quiet || this.opts.spinnersOnly) return;
    for (const paragraph of plain(message).split('\n')) {
      const key = /^( +)[^:\s][^:]*: +(?=\S)/.exec(paragraph);
      const hanging = key ? ' '.repeat(key[0].length - key[1]!.length) : '';
      for (const line of this.#lines(paragraph, hanging)) this.stderr.write(`${style ? this.paint(style, line) : line}\n`);
    }
  }

  /**
   * Command lines to copy and run, one a line (its leading spaces kept): on a terminal, broken
   * only where a shell reads the lines back as one command (output/shell-lines.ts).
   */
  commands(text: string, style?: Style): void {
    for (const command of plain(text).split('\n')) {
      const lead = /^ */.exec(command)![0];
      this.command(lead, command.trim(), `${lead}  `, style);
    }
  }

  /**
   * One command line after `prompt` ("db_orders: kept: "), later lines starting with `indent`: on a
   * terminal broken only as shell continuations (` \`), so that it pastes as one command (cli-contract 4).
   */
  command(prompt: string, command: string, indent: string, style?: Style): void {
    if (this.opts.quiet || this.opts.spinnersOnly) return;
    const width = this.opts.width;
    const text = plain(command);
    const lines = width === undefined ? [plain(prompt) + text] : shellLines(text, width, plain(prompt), indent);
    for (const line of lines) this.stderr.write(`${style ? this.paint(style, line) : line}\n`);
  }

  warn(message: string): void {
    if (this.opts.quiet || this.opts.spinnersOnly) return;
    const [first = '', ...rest] = this.#lines(`warning: ${plain(message)}`, '  ');
    this.stderr.write(`${[first.replace(/^warning:/, this.paint('yellow', 'warning:')), ...rest].join('\n')}\n`);
  }

  /** The --verbose exchange lines; written even with --quiet, since the user asked for both. */
  debug(message: string): void {
    if (this.opts.spinnersOnly) return;
    for (const line of this.#lines(plain(message), '  ')) this.stderr.write(`${this.paint('dim', line)}\n`);
  }

  /**
   * A spinner's last line, `symbol text, detail (elapsed)`, as lines that fit the terminal: wrapped
   * at spaces under the text, without `detail` where it would not fit whole.
   */
  #ending(symbol: string, text: string, detail: string | undefined, time: string): string {
    const whole = (d: string | undefined) => this.#lines(`${symbol} ${d === undefined ? text : `${text}, ${d}`} ${time}`, '  ');
    const width = this.opts.width;
    const lines = whole(detail);
    if (detail === undefined || width === undefined || lines.every((l) => displayWidth(l) <= width)) return lines.join('\n');
    return whole(undefined).join('\n');
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
  async spinner(text: Frame, opts: { elapsed?: boolean } = {}): Promise<Spinner> {
    const started = performance.now();
    const took = () => elapsed(performance.now() - started);
    /** The last line of a spinner: ✓ or ✗, the text and the time it took. */
    const end = (ok: boolean, t: string, detail?: string) =>
      this.#ending(this.#outcome(ok), plain(t), detail === undefined ? undefined : plain(detail), `(${took()})`);
    if (this.opts.quiet) return { update() {}, succeed() {}, fail() {} };
    if (!this.opts.animated) {
      let last = '';
      const line = (frame: Frame) => {
        const t = typeof frame === 'string' ? frame : frame(took());
        if (t !== last) {
          for (const l of this.#lines(plain(t), '  ')) this.stderr.write(`${l}\n`);
          beat.touch();
        }
        last = t;
      };
      const beat = heartbeat(() => {
        for (const l of this.#lines(`${plain(last)} (still running, ${took()})`, '  ')) this.stderr.write(`${l}\n`);
      });
      line(text);
      const persist = (ending: string) => {
        beat.stop();
        this.stderr.write(`${ending}\n`);
      };
      return { update: line, succeed: (t, d) => persist(end(true, t, d)), fail: (t) => persist(end(false, t)) };
    }
    const { default: ora } = await import('ora');
    let current: Frame = typeof text === 'string' ? plain(text) : text;
    const shown = () => (typeof current === 'function' ? plain(current(took())) : opts.elapsed ? `${current} (${took()})` : current);
    // A frame is redrawn in place: one wider than the terminal would wrap, so it is cut to fit.
    const frame = () => (this.opts.width === undefined ? shown() : truncate(shown(), this.opts.width - SPINNER_COLUMNS));
    const spin = ora({ text: frame(), stream: this.stderr as NodeJS.WritableStream, discardStdin: false }).start();
    const ticker = opts.elapsed ? setInterval(() => (spin.text = frame()), 1000) : undefined;
    ticker?.unref();
    // ora writes "symbol text": the ending is already whole lines, the symbol first.
    const persist = (ending: string) => {
      clearInterval(ticker);
      if (this.opts.spinnersOnly) return void spin.stop();
      const [symbol, ...rest] = ending.split(' ');
      spin.stopAndPersist({ symbol, text: rest.join(' ') });
    };
    return {
      update: (t) => {
        current = typeof t === 'string' ? plain(t) : t;
        spin.text = frame();
      },
      succeed: (t, d) => persist(end(true, t, d)),
      fail: (t) => persist(end(false, t)),
    };
  }
}

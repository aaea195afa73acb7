import type { Writable } from 'node:stream';
import type { Paint } from './style.js';

export interface Spinner {
  update(text: string): void;
  stop(finalText?: string): void;
}

/**
 * Everything that is not a result goes to stderr through here: warnings, hints, progress.
 * --quiet silences all of it; errors are printed by cli.ts, never through this.
 */
export class Reporter {
  constructor(
    private readonly stderr: Writable,
    private readonly quiet: boolean,
    private readonly animated: boolean,
    readonly paint: Paint,
  ) {}

  info(message: string): void {
    if (!this.quiet) this.stderr.write(`${message}\n`);
  }

  warn(message: string): void {
    if (!this.quiet) this.stderr.write(`${this.paint('yellow', 'warning:')} ${message}\n`);
  }

  /** The --verbose exchange lines; written even with --quiet, since the user asked for both. */
  debug(message: string): void {
    this.stderr.write(`${this.paint('dim', message)}\n`);
  }

  get isAnimated(): boolean {
    return this.animated;
  }

  /** An ora spinner on a TTY; otherwise plain lines, one per distinct state, or nothing with --quiet. */
  async spinner(text: string): Promise<Spinner> {
    if (this.quiet) return { update() {}, stop() {} };
    if (!this.animated) {
      let last = '';
      const line = (t: string) => {
        if (t !== last) this.stderr.write(`${t}\n`);
        last = t;
      };
      line(text);
      return { update: line, stop: (t) => t && line(t) };
    }
    const { default: ora } = await import('ora');
    const spin = ora({ text, stream: this.stderr as NodeJS.WritableStream, discardStdin: false }).start();
    return {
      update: (t) => {
        spin.text = t;
      },
      stop: (t) => (t ? spin.stopAndPersist({ symbol: '-', text: t }) : spin.stop()),
    };
  }
}

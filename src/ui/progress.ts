import { formatBytes } from '../output/format.js';
import type { Reporter, Spinner } from './reporter.js';

export interface ByteProgress {
  update(received: number, total: number): void;
  stop(finalText?: string): void;
}

const short = (n: number) => formatBytes(n).split(' (')[0] ?? '';

function bar(fraction: number, width = 24): string {
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/**
 * A byte progress bar with rate and ETA on a TTY (redrawn at most 10 times a second);
 * without one, a plain line at each quarter; nothing with --quiet.
 */
export async function byteProgress(ui: Reporter, label: string, now: () => number = () => performance.now()): Promise<ByteProgress> {
  const started = now();
  let spinner: Spinner | undefined;
  let lastDraw = 0;
  let lastQuarter = -1;
  if (ui.isAnimated) spinner = await ui.spinner(label);
  return {
    update(received, total) {
      const fraction = total > 0 ? Math.min(1, received / total) : 1;
      const t = now();
      if (spinner) {
        if (t - lastDraw < 100 && received < total) return;
        lastDraw = t;
        const seconds = (t - started) / 1000;
        const rate = seconds > 0 ? received / seconds : 0;
        const eta = rate > 0 ? Math.ceil((total - received) / rate) : undefined;
        spinner.update(
          `${label} ${bar(fraction)} ${Math.floor(fraction * 100)}% ${short(received)}/${short(total)} ${short(rate)}/s${eta !== undefined ? ` ETA ${eta}s` : ''}`,
        );
        return;
      }
      const quarter = Math.floor(fraction * 4);
      if (quarter > lastQuarter) {
        lastQuarter = quarter;
        ui.info(`${label}: ${quarter * 25}% (${short(received)} of ${short(total)})`);
      }
    },
    stop(finalText) {
      spinner?.stop(finalText);
      if (!spinner && finalText) ui.info(finalText);
    },
  };
}

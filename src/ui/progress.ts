import { formatBytes } from '../output/format.js';
import { elapsed, type Reporter, type Spinner } from './reporter.js';

export interface ByteProgress {
  update(received: number, total: number): void;
  succeed(text: string): void;
  fail(text: string): void;
}

const short = (n: number) => formatBytes(n).split(' (')[0] ?? '';

function bar(fraction: number, width = 24): string {
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** A rate is shown, and an ETA computed from it, only once this much time has passed. */
const RATE_AFTER_MS = 1_000;
/** Without a terminal: a line at most every 5 s or 10 %, whichever is rarer (cli-contract 4). */
const LINE_EVERY_MS = 5_000;
const LINE_EVERY_FRACTION = 0.1;

/**
 * Download progress that tells the truth: on a terminal a bar with the true percentage, and a rate
 * and ETA once the rate is known (redrawn at most 10 times a second); without one, plain lines with
 * the true figure; nothing with --quiet. Ends with ✓ or ✗ and the elapsed time.
 */
export async function byteProgress(ui: Reporter, label: string, now: () => number = () => performance.now()): Promise<ByteProgress> {
  const started = now();
  const figure = (received: number, total: number) => {
    const fraction = total > 0 ? Math.min(1, received / total) : 1;
    // Rounded, as people read it (64.0 of 92.9 KiB is 69 %), but 100 % only when it is all there.
    const percent = fraction < 1 ? Math.min(99, Math.round(fraction * 100)) : 100;
    return { fraction, percent: `${percent}%` };
  };
  // Without a terminal the spinner prints the label once, then the outcome; the lines between are ours.
  const spinner: Spinner = await ui.spinner(label);
  const ending = { succeed: (text: string) => spinner.succeed(text), fail: (text: string) => spinner.fail(text) };
  if (ui.isAnimated) {
    let lastDraw = -Infinity;
    return {
      update(received, total) {
        const t = now();
        if (t - lastDraw < 100 && received < total) return;
        lastDraw = t;
        const { fraction, percent } = figure(received, total);
        let speed = '';
        if (t - started >= RATE_AFTER_MS && received > 0) {
          const rate = received / ((t - started) / 1000);
          speed = ` ${short(rate)}/s ETA ${Math.ceil((total - received) / rate)}s`;
        }
        spinner.update(`${label} ${bar(fraction)} ${percent} ${short(received)}/${short(total)}${speed}`);
      },
      ...ending,
    };
  }
  const due = rareLines(started, now);
  return {
    update(received, total) {
      const { fraction, percent } = figure(received, total);
      if (due(fraction)) spinner.update(`${label}: ${percent} (${short(received)} of ${short(total)})`);
    },
    ...ending,
  };
}

/** Without a terminal: whether a progress line is due, at most every 5 s or 10 %, whichever is rarer, and never for 100 %. */
function rareLines(started: number, now: () => number): (fraction: number) => boolean {
  let last = { at: started, fraction: 0 };
  return (fraction) => {
    const t = now();
    if (t - last.at < LINE_EVERY_MS || fraction - last.fraction < LINE_EVERY_FRACTION || fraction >= 1) return false;
    last = { at: t, fraction };
    return true;
  };
}

/**
 * Progress of a count of things (pg_restore's objects, cli-contract 4): "12 of 19 objects" and the
 * elapsed time, redrawn on a terminal; without one, rare plain lines and the spinner's heartbeat.
 */
export async function countProgress(ui: Reporter, label: string, unit: string, now: () => number = () => performance.now()): Promise<ByteProgress> {
  const started = now();
  const spinner = await ui.spinner(label, { elapsed: true });
  const ending = { succeed: (text: string) => spinner.succeed(text), fail: (text: string) => spinner.fail(text) };
  const text = (done: number, total: number) => `${label}: ${Math.min(done, total)} of ${total} ${unit}`;
  if (ui.isAnimated) {
    let lastDraw = -Infinity;
    return {
      update(done, total) {
        const t = now();
        if (t - lastDraw < 100 && done < total) return;
        lastDraw = t;
        spinner.update(text(done, total));
      },
      ...ending,
    };
  }
  const due = rareLines(started, now);
  return {
    update(done, total) {
      if (due(total > 0 ? done / total : 1)) spinner.update(`${text(done, total)} (${elapsed(now() - started)})`);
    },
    ...ending,
  };
}

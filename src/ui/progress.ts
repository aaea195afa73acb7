import { formatBytes } from '../output/format.js';
import { displayWidth, truncate } from '../output/terminal-text.js';
import { elapsed, SPINNER_COLUMNS, type Reporter } from './reporter.js';

/** Progress of a quantity (bytes, objects) towards a total, ending in ✓ or ✗ with the elapsed time. */
export interface Progress {
  update(done: number, total: number): void;
  succeed(text: string, detail?: string): void;
  fail(text: string): void;
}

const short = (n: number) => formatBytes(n).split(' (')[0] ?? '';

/** The bar's cells: as many as fit, up to the widest; fewer than the narrowest and the line goes without it. */
const BAR_CELLS = { widest: 24, narrowest: 8 };

function bar(fraction: number, cells: number): string {
  const filled = Math.round(fraction * cells);
  return `[${'#'.repeat(filled)}${'-'.repeat(cells - filled)}]`;
}

/**
 * The spinner's text, fitted to `columns` (undefined: no limit): the bar as wide as the room
 * allows; where too narrow, first without the rate and ETA, then without the byte counts, then
 * without the bar, and at last with the label cut, the percentage kept.
 */
export function barLine(label: string, fraction: number, figures: { percent: string; bytes: string; speed?: string }, columns?: number): string {
  const room = columns === undefined ? Infinity : columns - SPINNER_COLUMNS;
  const extras = [[figures.bytes, figures.speed], [figures.bytes], []].map((e) => e.filter((x): x is string => !!x));
  for (const shown of extras) {
    const line = (b: string) => [label, b, figures.percent, ...shown].join(' ');
    const cells = Math.min(BAR_CELLS.widest, room - displayWidth(line('[]')));
    if (cells >= BAR_CELLS.narrowest) return line(bar(fraction, cells));
  }
  return `${truncate(label, room - displayWidth(figures.percent) - 1)} ${figures.percent}`;
}

/** A rate is shown, and an ETA computed from it, only once this much time has passed. */
const RATE_AFTER_MS = 1_000;
/** Without a terminal: a line at most every 5 s or 10 %, whichever is rarer (cli-contract 4). */
const LINE_EVERY_MS = 5_000;
const LINE_EVERY_FRACTION = 0.1;

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

/** How a progress shows `done` of `total` after `ms`: redrawn on a terminal, or as a plain line. */
interface Render {
  animated(done: number, total: number, ms: number): string;
  plain(done: number, total: number, ms: number): string;
}

/**
 * The one progress display: on a terminal the spinner's text redrawn at most 10 times a second;
 * without one, plain lines at most every 5 s or 10 % (and the spinner's heartbeat); nothing with --quiet.
 */
async function progress(ui: Reporter, label: string, spinnerOpts: { elapsed?: boolean }, render: Render, now: () => number): Promise<Progress> {
  const started = now();
  // Without a terminal the spinner prints the label once, then the outcome; the lines between are ours.
  const spinner = await ui.spinner(label, spinnerOpts);
  const ending = { succeed: (text: string, detail?: string) => spinner.succeed(text, detail), fail: (text: string) => spinner.fail(text) };
  if (ui.isAnimated) {
    let lastDraw = -Infinity;
    return {
      update(done, total) {
        const t = now();
        if (t - lastDraw < 100 && done < total) return;
        lastDraw = t;
        spinner.update(render.animated(done, total, t - started));
      },
      ...ending,
    };
  }
  const due = rareLines(started, now);
  return {
    update(done, total) {
      if (due(total > 0 ? Math.min(1, done / total) : 1)) spinner.update(render.plain(done, total, now() - started));
    },
    ...ending,
  };
}

/** The true percentage: rounded as people read it (64.0 of 92.9 KiB is 69 %), but 100 % only when it is all there. */
function figure(received: number, total: number): { fraction: number; percent: string } {
  const fraction = total > 0 ? Math.min(1, received / total) : 1;
  const percent = fraction < 1 ? Math.min(99, Math.round(fraction * 100)) : 100;
  return { fraction, percent: `${percent}%` };
}

/**
 * Download progress that tells the truth: on a terminal a bar with the true percentage, and a rate
 * and ETA once the rate is known, fitted to the terminal; without one, plain lines with the true figure.
 */
export function byteProgress(ui: Reporter, label: string, now: () => number = () => performance.now()): Promise<Progress> {
  return progress(
    ui,
    label,
    {},
    {
      animated(received, total, ms) {
        const { fraction, percent } = figure(received, total);
        let speed: string | undefined;
        if (ms >= RATE_AFTER_MS && received > 0) {
          const rate = received / (ms / 1000);
          speed = `${short(rate)}/s ETA ${Math.ceil((total - received) / rate)}s`;
        }
        return barLine(label, fraction, { percent, bytes: `${short(received)}/${short(total)}`, speed }, ui.width);
      },
      plain: (received, total) => `${label}: ${figure(received, total).percent} (${short(received)} of ${short(total)})`,
    },
    now,
  );
}

/**
 * Progress of a count of things (pg_restore's objects, cli-contract 4): "12 of 19 objects" and the
 * elapsed time, redrawn on a terminal; without one, rare plain lines and the spinner's heartbeat.
 */
export function countProgress(ui: Reporter, label: string, unit: string, now: () => number = () => performance.now()): Promise<Progress> {
  const text = (done: number, total: number) => `${label}: ${Math.min(done, total)} of ${total} ${unit}`;
  return progress(ui, label, { elapsed: true }, { animated: text, plain: (done, total, ms) => `${text(done, total)} (${elapsed(ms)})` }, now);
}

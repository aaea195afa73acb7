import { formatBytes } from '../output/format.js';
import { displayWidth, truncate } from '../output/terminal-text.js';
import { elapsed, SPINNER_COLUMNS, type Frame, type Reporter } from './reporter.js';

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
  animated(done: number, total: number, ms: number): Frame;
  plain(done: number, total: number, ms: number): string;
  /** Told every update, drawn or not: a frame redrawn later by the spinner's clock shows the latest figures. */
  seen?(done: number, total: number): void;
}

/**
 * The one progress display: on a terminal the spinner's text redrawn at most 10 times a second;
 * without one, plain lines at most every 5 s or 10 % (and the spinner's heartbeat); nothing with --quiet.
 */
async function progress(ui: Reporter, label: Frame, spinnerOpts: { elapsed?: boolean }, render: Render, now: () => number): Promise<Progress> {
  const started = now();
  // Without a terminal the spinner prints the label once, then the outcome; the lines between are ours.
  const spinner = await ui.spinner(label, spinnerOpts);
  const ending = { succeed: (text: string, detail?: string) => spinner.succeed(text, detail), fail: (text: string) => spinner.fail(text) };
  if (ui.isAnimated) {
    let lastDraw = -Infinity;
    return {
      update(done, total) {
        render.seen?.(done, total);
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

/** A count's line: what runs, where (the first thing to go where it does not fit), and what is under way now. */
export interface CountLabel {
  /** "Running pg_restore". */
  label: string;
  /** "pg_restore": the label where the whole one leaves the detail no room. */
  short?: string;
  /** "into postgresql://app@db:5432/orders": left out before any figure is. */
  place?: string;
  /** "objects". */
  unit: string;
  /** The total, where known before the first update: the line starts with its figures, "0 of 19 objects". */
  total?: number;
  /** What is under way now, read at each frame ("loading public.orders"): a long wait on one object says on what. */
  detail?: () => string | undefined;
}

/** Narrower than this, the detail is left out rather than cut to a stub. */
const MIN_DETAIL = 12;

/**
 * "Running pg_restore into <dsn>: 3 of 7 objects, loading public.orders (9.1s)", fitted to `columns`
 * (undefined: no limit) as cli-contract 4 (v4) orders it: the place goes first, then the label
 * shortens, then the detail is cut and left out; the figures and the time stay, and only then is
 * the label cut.
 */
export function countLine(c: CountLabel, done: number, total: number, time: string | undefined, columns?: number): string {
  const room = columns === undefined ? Infinity : columns - SPINNER_COLUMNS;
  const figures = `${Math.min(done, total)} of ${total} ${c.unit}`;
  const after = time === undefined ? '' : ` (${time})`;
  const detail = c.detail?.();
  const line = (head: string, d: string | undefined) => `${head}: ${figures}${d ? `, ${d}` : ''}${after}`;
  const heads = [...(c.place ? [`${c.label} ${c.place}`] : []), c.label, ...(c.short ? [c.short] : [])];
  for (const head of heads) if (displayWidth(line(head, detail)) <= room) return line(head, detail);
  const head = heads.at(-1)!;
  if (detail) {
    const left = room - displayWidth(line(head, ''));
    if (left >= MIN_DETAIL) return line(head, truncate(detail, left - 2));
  }
  if (displayWidth(line(head, undefined)) <= room) return line(head, undefined);
  const tail = `: ${figures}${after}`;
  return `${truncate(head, Math.max(1, room - displayWidth(tail)))}${tail}`;
}

/**
 * Progress of a count of things (pg_restore's objects, cli-contract 4): "12 of 19 objects", what is
 * under way and the elapsed time, redrawn on a terminal and fitted to it; without one, rare plain
 * lines and the spinner's heartbeat.
 */
export async function countProgress(ui: Reporter, c: CountLabel, now: () => number = () => performance.now()): Promise<Progress> {
  const label = c.place ? `${c.label} ${c.place}` : c.label;
  const live = { done: 0, total: 0 };
  // On a terminal the first frame already has the figures, where the total is known.
  const first = c.total !== undefined && ui.isAnimated ? (time: string) => countLine(c, 0, c.total!, time, ui.width) : label;
  const shown = await progress(
    ui,
    first,
    { elapsed: true },
    {
      seen: (done, total) => Object.assign(live, { done, total }),
      animated: () => (time: string) => countLine(c, live.done, live.total, time, ui.width),
      plain: (done, total, ms) => countLine(c, done, total, elapsed(ms)),
    },
    now,
  );
  if (c.total !== undefined) shown.update(0, c.total);
  return shown;
}

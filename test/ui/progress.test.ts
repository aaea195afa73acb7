/**
 * Progress that tells the truth (cli-contract 4): without a terminal, the true percentage at most
 * every 5 s or 10 %, whichever is rarer; on a terminal no ETA before the rate is known; a finished
 * spinner shows how it ended (✓ or ✗, or ok/failed where the terminal cannot draw them) and the time.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { barLine, byteProgress, countLine } from '../../src/ui/progress.js';
import { Reporter } from '../../src/ui/reporter.js';

const TOTAL = 95129;

function reporter(opts: { animated: boolean; unicode?: boolean; quiet?: boolean }) {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const ui = new Reporter(stream, { quiet: opts.quiet ?? false, animated: opts.animated, paint: (_s, t) => t, unicode: opts.unicode ?? true });
  return { ui, text: () => chunks.join('') };
}

describe('without a terminal', () => {
  it('lines carry the true figure, at most one every 5 s and 10 %', async () => {
    const { ui, text } = reporter({ animated: false });
    let t = 0;
    const progress = await byteProgress(ui, 'Downloading artifact', () => t);
    t = 6_000;
    progress.update(65_536, TOTAL); // 68.9 %: shown, as 69 %
    t = 7_000;
    progress.update(80_000, TOTAL); // only 1 s later: not shown
    t = 13_000;
    progress.update(72_000, TOTAL); // 7 s later but under 10 % more (76 %): not shown
    t = 20_000;
    progress.update(TOTAL - 100, TOTAL); // 99.9 %: never rounded up to 100 %
    progress.update(TOTAL, TOTAL);
    progress.succeed('Verified 92.9 KiB (95129 bytes)');
    expect(text().split('\n').filter(Boolean)).toEqual([
      'Downloading artifact',
      'Downloading artifact: 69% (64.0 KiB of 92.9 KiB)',
      'Downloading artifact: 99% (92.8 KiB of 92.9 KiB)',
      expect.stringMatching(/^✓ Verified 92\.9 KiB \(95129 bytes\) \(\d+\.\ds\)$/),
    ]);
  });

  it('a failure ends with ✗, or "failed" where the terminal cannot draw it', async () => {
    for (const [unicode, mark] of [
      [true, '✗'],
      [false, 'failed'],
    ] as const) {
      const { ui, text } = reporter({ animated: false, unicode });
      const spinner = await ui.spinner('Backup bj_1: running');
      spinner.fail('Backup bj_1: failed_terminal');
      expect(text()).toMatch(new RegExp(`^Backup bj_1: running\\n${mark} Backup bj_1: failed_terminal \\(\\d+\\.\\ds\\)\\n$`));
    }
  });

  it('--quiet: nothing at all', async () => {
    const { ui, text } = reporter({ animated: false, quiet: true });
    const progress = await byteProgress(ui, 'Downloading artifact', () => 0);
    progress.update(TOTAL, TOTAL);
    progress.succeed('done');
    expect(text()).toBe('');
  });
});

describe('on a terminal', () => {
  /** A terminal reporter whose spinner records each frame it is given (ora itself redraws on a timer). */
  function recordingReporter() {
    const frames: string[] = [];
    const ended: string[] = [];
    const ui = {
      isAnimated: true,
      spinner: async (text: string) => {
        frames.push(text);
        return { update: (t: string) => frames.push(t), succeed: (t: string) => ended.push(`ok ${t}`), fail: (t: string) => ended.push(`failed ${t}`) };
      },
    } as unknown as Reporter;
    return { ui, frames, ended };
  }

  it('no ETA until the rate is known; then the rate and a true ETA', async () => {
    const { ui, frames, ended } = recordingReporter();
    let t = 0;
    const progress = await byteProgress(ui, 'Downloading artifact', () => t);
    t = 200;
    progress.update(10_000, 100_000);
    expect(frames.at(-1)).toBe('Downloading artifact [##----------------------] 10% 9.8 KiB/97.7 KiB');
    t = 2_000;
    progress.update(50_000, 100_000);
    // 50,000 bytes in 2 s: 24.4 KiB/s, and 50,000 more bytes to go: 2 s.
    expect(frames.at(-1)).toBe('Downloading artifact [############------------] 50% 48.8 KiB/97.7 KiB 24.4 KiB/s ETA 2s');
    progress.succeed('Verified');
    expect(ended).toEqual(['ok Verified']);
  });
});

describe('on a terminal of any width (cli-contract 4, v3)', () => {
  const figures = { percent: '50%', bytes: '48.8 KiB/97.7 KiB', speed: '24.4 KiB/s ETA 2s' };
  const line = (width?: number) => barLine('Downloading artifact', 0.5, figures, width);

  it.each([160, 120, 80, 60, 40, 30, 20, 12])('at %i columns the line, the spinner frame before it and room for a ^C echo after it fit', (width) => {
    expect(line(width).length + 4).toBeLessThanOrEqual(width);
    expect(line(width)).toMatch(/50%/);
  });

  it('the bar narrows first; then the rate and ETA go, then the byte counts, then the bar; the label is cut last', () => {
    expect(line()).toBe('Downloading artifact [############------------] 50% 48.8 KiB/97.7 KiB 24.4 KiB/s ETA 2s');
    expect(line(120)).toBe(line());
    expect(line(80)).toBe('Downloading artifact [#######------] 50% 48.8 KiB/97.7 KiB 24.4 KiB/s ETA 2s');
    expect(line(60)).toBe('Downloading artifact [######-----] 50% 48.8 KiB/97.7 KiB');
    expect(line(40)).toBe('Downloading artifact [#####----] 50%');
    expect(line(30)).toBe('Downloading artifact 50%');
    expect(line(20)).toBe('Downloading… 50%');
  });

  it("the reporter's width reaches the bar", async () => {
    const frames: string[] = [];
    const ui = {
      isAnimated: true,
      width: 40,
      spinner: async (text: string) => {
        frames.push(text);
        return { update: (t: string) => frames.push(t), succeed() {}, fail() {} };
      },
    } as unknown as Reporter;
    let t = 0;
    const progress = await byteProgress(ui, 'Downloading artifact', () => t);
    t = 2_000;
    progress.update(50_000, 100_000);
    expect(frames.at(-1)).toBe('Downloading artifact [#####----] 50%');
  });
});

describe("pg_restore's progress line (cli-contract 4, v4)", () => {
  const c = {
    label: 'Running pg_restore',
    short: 'pg_restore',
    place: 'into postgresql://app@db.internal:5432/orders_restored',
    unit: 'objects',
    detail: () => 'loading public.order_line_items',
  };
  const line = (width?: number) => countLine(c, 3, 7, '9.1s', width);

  it('drops the DSN first, then shortens the label, then cuts and drops the table; the figures and the time stay', () => {
    expect(line()).toBe('Running pg_restore into postgresql://app@db.internal:5432/orders_restored: 3 of 7 objects, loading public.order_line_items (9.1s)');
    expect(line(80)).toBe('Running pg_restore: 3 of 7 objects, loading public.order_line_items (9.1s)');
    expect(line(60)).toBe('pg_restore: 3 of 7 objects, loading public.order… (9.1s)');
    expect(line(40)).toBe('pg_restore: 3 of 7 objects (9.1s)');
    for (const width of [160, 120, 80, 60, 40, 30]) {
      expect(line(width).length + 4, `${width}`).toBeLessThanOrEqual(width);
      expect(line(width), `${width}`).toMatch(/3 of 7 objects.* \(9\.1s\)$/);
    }
  });
});

describe("a spinner's last line on a terminal", () => {
  const SHA = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';

  async function ending(width: number | undefined, detail?: string): Promise<string[]> {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    // CI=1 on a terminal: plain lines, at the terminal's width.
    const ui = new Reporter(stream, { quiet: false, animated: false, paint: (_s, t) => t, unicode: true, width });
    const spinner = await ui.spinner('Downloading artifact');
    spinner.succeed('Verified 92.9 KiB (95129 bytes)', detail);
    return chunks.join('').split('\n').filter(Boolean).slice(1);
  }

  it('piped: the detail follows the text on one line, however long', async () => {
    expect(await ending(undefined, `SHA-256 ${SHA}`)).toEqual([
      expect.stringMatching(new RegExp(`^✓ Verified 92\\.9 KiB \\(95129 bytes\\), SHA-256 ${SHA} \\(\\d+\\.\\ds\\)$`)),
    ]);
  });

  it.each([120, 80])('at %i columns the digest is shown whole, the line wrapped under the text where needed', async (width) => {
    const lines = await ending(width, `SHA-256 ${SHA}`);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(width);
    expect(lines.join(' ')).toContain(SHA);
    if (width < 120) expect(lines[1]).toMatch(/^ {2}\S/);
  });

  it.each([60, 40])('at %i columns, where the digest cannot fit whole, it is left out (the final screen shows it)', async (width) => {
    const lines = await ending(width, `SHA-256 ${SHA}`);
    expect(lines).toEqual([expect.stringMatching(/^✓ Verified 92\.9 KiB \(95129 bytes\) \(\d+\.\ds\)$/)]);
  });
});

/**
 * --max-age (cli-contract 9): the recovery point objective as an operator writes it (90m, 26h, 7d),
 * and ages as the drill's table prints them.
 */
import { describe, expect, it } from 'vitest';
import { humanSeconds, ageAgainstLimit, parseDuration } from '../../src/drill/duration.js';
import { isCliError } from '../../src/errors.js';
import { ExitCode } from '../../src/exit-codes.js';

describe('parseDuration (--max-age)', () => {
  it.each([
    ['90m', 5400],
    ['26h', 93_600],
    ['7d', 604_800],
    ['2w', 1_209_600],
    ['45s', 45],
    ['1s', 1],
    [' 36h ', 129_600],
    ['0090m', 5400],
    ['9999999s', 9_999_999],
  ])('%j is %i seconds', (raw, seconds) => {
    expect(parseDuration(raw, '--max-age')).toBe(seconds);
  });

  it.each(['0m', '0s', '00d', '', ' ', '90', 'm', '1.5h', '-1h', '+1h', '90 m', '1H', '1D', '1y', '1mo', '1h30m', 'P1D', '10000000s', 'h1', '１h'])(
    '%j is refused (exit 2) naming the flag, the value and the units',
    (raw) => {
      let caught: unknown;
      try {
        parseDuration(raw, '--max-age');
      } catch (err) {
        caught = err;
      }
      expect(isCliError(caught)).toBe(true);
      if (!isCliError(caught)) return;
      expect(caught.exitCode).toBe(ExitCode.usage);
      expect(caught.message).toBe(`Invalid --max-age "${raw}": a whole number and a unit, s, m, h, d or w (90m, 26h, 7d).`);
    },
  );
});

describe('humanSeconds', () => {
  it.each([
    [0, '0s'],
    [-5, '0s'],
    [0.4, '0s'],
    [42, '42s'],
    [60, '1m'],
    [61, '1m1s'],
    [5400, '1h30m'],
    [3600, '1h'],
    [3659, '1h'],
    [86_400, '1d'],
    [93_784, '1d2h'],
    [211_132, '2d10h'],
    [30 * 86_400, '30d'],
  ])('%d seconds read as %s (the two largest units)', (s, text) => {
    expect(humanSeconds(s)).toBe(text);
  });
});

describe('ageAgainstLimit (max_age: the age and --max-age side by side)', () => {
  it.each([
    // Issue 34: --max-age 26h came back as "at most 1d2h"; the limit reads as typed.
    [25 * 3600 + 58 * 60, 26 * 3600, '25h58m', '26h'],
    [26 * 3600 + 60, 26 * 3600, '26h1m', '26h'],
    [5 * 3600, 5400, '300m', '90m'],
    [3 * 86_400 + 7200, 7 * 86_400, '3d2h', '7d'],
    // Issue 22: an age just over --max-age read "backup age 5h58m, at most 5h58m".
    [5 * 3600 + 58 * 60 + 30, 358 * 60, '358m30s', '358m'],
    [6 * 3600 + 30, 6 * 3600, '6h30s', '6h'],
    // Equal: the same words.
    [5400, 5400, '90m', '90m'],
  ])('%d seconds against %d read %s, at most %s', (a, b, shownA, shownB) => {
    expect(ageAgainstLimit(a, b)).toEqual([shownA, shownB]);
  });
});

import { UsageError } from '../errors.js';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** --max-age: "90m", "26h", "7d" (also s and w) → seconds; anything else is exit 2, before any request. */
export function parseDuration(raw: string, flag: string): number {
  const m = /^(\d{1,7})([smhdw])$/.exec(raw.trim());
  const seconds = m ? Number(m[1]) * UNIT_SECONDS[m[2]!]! : 0;
  if (!m || seconds <= 0) throw new UsageError(`Invalid ${flag} "${raw}": a whole number and a unit, s, m, h, d or w (90m, 26h, 7d).`);
  return seconds;
}

const UNITS = [
  ['d', 86_400],
  ['h', 3600],
  ['m', 60],
  ['s', 1],
] as const;

/**
 * 93784 → "1d2h", 5400 → "1h30m", 42 → "42s": an age or a duration as an operator reads it, in its
 * `units` largest units (two by default; a unit that is zero is left out).
 */
export function humanSeconds(total: number, units = 2): string {
  const s = Math.max(0, Math.round(total));
  const first = UNITS.findIndex(([, size]) => s >= size);
  if (first < 0) return '0s';
  return UNITS.slice(first, first + units)
    .map(([unit, size], i) => {
      const value = i === 0 ? Math.floor(s / size) : Math.floor((s % UNITS[first + i - 1]![1]) / size);
      return value > 0 || i === 0 ? `${value}${unit}` : '';
    })
    .join('');
}

/** `total` from the unit at UNITS[first] down, in `units` units: the first one whole (26h, not 1d2h). */
function fromUnit(total: number, first: number, units: number): string {
  const s = Math.max(0, Math.round(total));
  return UNITS.slice(first, first + units)
    .map(([unit, size], i) => {
      const value = i === 0 ? Math.floor(s / size) : Math.floor((s % UNITS[first + i - 1]![1]) / size);
      return value > 0 || i === 0 ? `${value}${unit}` : '';
    })
    .join('');
}

/**
 * An age beside --max-age: the limit in the one largest unit that divides it (26h as typed, never
 * "1d2h"; 90m, never "1h30m"), the age from that same unit down, with the precision that tells the
 * two apart ("5h58m30s" beside "358m" is "358m30s", never "358m" beside "358m").
 */
export function ageAgainstLimit(age: number, limit: number): [string, string] {
  const first = UNITS.findIndex(([, size]) => limit % size === 0 && limit >= size);
  const most = `${limit / UNITS[first]![1]}${UNITS[first]![0]}`;
  for (let units = 2; units <= UNITS.length - first; units++) {
    const shown = fromUnit(age, first, units);
    if (shown !== most || units === UNITS.length - first) return [shown, most];
  }
  return [fromUnit(age, first, UNITS.length - first), most];
}

import { UsageError } from '../errors.js';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** --max-age: "90m", "26h", "7d" (also s and w) → seconds; anything else is exit 2, before any request. */
export function parseDuration(raw: string, flag: string): number {
  const m = /^(\d{1,7})([smhdw])$/.exec(raw.trim());
  const seconds = m ? Number(m[1]) * UNIT_SECONDS[m[2]!]! : 0;
  if (!m || seconds <= 0) throw new UsageError(`Invalid ${flag} "${raw}": a whole number and a unit, s, m, h, d or w (90m, 26h, 7d).`);
  return seconds;
}

const UNITS = [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const;

/** 93784 → "1d2h", 5400 → "1h30m", 42 → "42s": an age or a duration as an operator reads it (the two largest units). */
export function humanSeconds(total: number): string {
  const s = Math.max(0, Math.round(total));
  const first = UNITS.findIndex(([, size]) => s >= size);
  if (first < 0) return '0s';
  const [unit, size] = UNITS[first]!;
  const next = UNITS[first + 1];
  const rest = next ? Math.floor((s % size) / next[1]) : 0;
  return `${Math.floor(s / size)}${unit}${rest > 0 ? `${rest}${next![0]}` : ''}`;
}

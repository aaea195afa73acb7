import { UsageError } from '../errors.js';
import type { Fingerprint } from './fingerprint.js';

/** --drift-min-rows and --max-shrink (cli-contract 9.17). */
export interface DriftLimits {
  /** A table smaller than this in the baseline may shrink by any share (it may still not vanish). */
  minRows: number;
  /** The share of rows a table (or the whole database) may lose, 0 to 1. */
  maxShrink: number;
}

export const DEFAULT_DRIFT: DriftLimits = { minRows: 1000, maxShrink: 0.5 };

/** --max-shrink: "50%" (or "12.5%"), more than 0 and at most 100; anything else is exit 2. */
export function parseShare(raw: string, flag: string): number {
  const m = /^(\d{1,3}(?:\.\d{1,2})?)%$/.exec(raw.trim());
  const pct = m ? Number(m[1]) : NaN;
  if (!(pct > 0 && pct <= 100)) throw new UsageError(`Invalid ${flag} "${raw}": a share of rows such as 50% (more than 0%, at most 100%).`);
  return pct / 100;
}

export interface DriftResult {
  passed: boolean;
  detail: string;
  /** The failure's message, for a failed check. */
  message?: string;
}

const n = (x: number) => x.toLocaleString('en-US');
const pct = (from: number, to: number) => `${from ? Math.round(((to - from) / from) * 100) : 0}%`;
const lost = (from: number, to: number, limits: DriftLimits) => from > 0 && (from - to) / from > limits.maxShrink;
/** The tables named in the detail, as rows_match does. */
const SHOWN = 20;

function list(items: string[]): string {
  return items.length > SHOWN ? `${items.slice(0, SHOWN).join('; ')}; and ${items.length - SHOWN} more` : items.join('; ');
}

/**
 * no_drift: this drill's fingerprint against the baseline's for the same database. Fails where a
 * table of the baseline is missing, where a table of at least minRows rows lost more than maxShrink of
 * them, or where the database's total rows did; schema changes (tables added, the digest changed)
 * are listed and pass: a migration is not data loss.
 */
export function noDrift(baseline: Fingerprint, now: Fingerprint, limits: DriftLimits): DriftResult {
  const current = new Map(now.tables.map((t) => [t.table, t.rows] as const));
  const before = new Set(baseline.tables.map((t) => t.table));
  const failures: string[] = [];
  for (const t of baseline.tables) {
    const rows = current.get(t.table);
    if (rows === undefined) failures.push(`${t.table}: ${n(t.rows)} row(s) in the baseline, table not found`);
    else if (t.rows >= limits.minRows && lost(t.rows, rows, limits))
      failures.push(`${t.table}: ${n(t.rows)} row(s) in the baseline, ${n(rows)} now (${pct(t.rows, rows)})`);
  }
  const [from, to] = [baseline.totals.rows, now.totals.rows];
  if (lost(from, to, limits)) failures.push(`total: ${n(from)} row(s) in the baseline, ${n(to)} now (${pct(from, to)})`);
  const added = now.tables.filter((t) => !before.has(t.table)).map((t) => t.table);
  const changes = [
    added.length ? `new table(s): ${list(added)}` : '',
    baseline.schemaDigest !== now.schemaDigest ? "the schema changed (its digest differs from the baseline's)" : '',
  ].filter(Boolean);
  const schema = changes.length ? `; schema changes (pass): ${changes.join('; ')}` : '';
  const limit = `more than ${Math.round(limits.maxShrink * 1000) / 10}%`;
  if (!failures.length) {
    return {
      passed: true,
      detail: `${n(now.totals.tables)} table(s), ${n(to)} row(s) against ${n(from)} in the baseline; no table lost ${limit} of its rows${schema}`,
    };
  }
  const what = `${failures.length} drift(s) against the baseline (lost ${limit}, or missing): ${list(failures)}`;
  return { passed: false, detail: `${what}${schema}`, message: `The restored data shrank against the baseline: ${what}.` };
}

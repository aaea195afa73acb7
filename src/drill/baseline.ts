import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { noDrift, type DriftLimits } from './drift.js';
import type { Fingerprint } from './fingerprint.js';
import { readDrillDocument } from './read-document.js';

/** --baseline: each database of an earlier drill, with its fingerprint where that drill took one. */
export interface Baseline {
  /** The file read, for the check's words. */
  path: string;
  databases: Map<string, Fingerprint | undefined>;
}

/**
 * --baseline <drill.json | report dir> (cli-contract 9.17): one database's report, a shard's or a
 * merged one, checked like a shard given to merge. Read before any createRestore: what cannot be read
 * or is not a drill document is exit 2.
 */
export async function readBaseline(given: string): Promise<Baseline> {
  const isDir = await stat(given).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const path = isDir ? join(given, 'drill.json') : given;
  const doc = await readDrillDocument(path);
  if (!doc) {
    throw new UsageError(`--baseline ${path} does not exist.`, "Name an earlier drill's drill.json, or the --report directory that holds it.");
  }
  return { path, databases: new Map(doc.drill.databases.map((d) => [d.databaseId, d.fingerprint] as const)) };
}

/** no_drift for one database (cli-contract 9.17): compared, or skipped saying why. */
export function driftAgainst(
  baseline: Baseline,
  databaseId: string,
  now: Fingerprint | undefined,
  limits: DriftLimits,
): { status: 'passed' | 'failed' | 'skipped'; detail: string; message?: string } {
  if (!baseline.databases.has(databaseId)) return { status: 'skipped', detail: `not in the baseline (${baseline.path})` };
  const before = baseline.databases.get(databaseId);
  if (!now) return { status: 'skipped', detail: 'rows_match did not run' };
  if (!before) return { status: 'skipped', detail: `the baseline's drill of it has no fingerprint (its rows_match did not run) (${baseline.path})` };
  const drift = noDrift(before, now, limits);
  return { status: drift.passed ? 'passed' : 'failed', detail: drift.detail, ...(drift.message ? { message: drift.message } : {}) };
}

import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { DatabaseDrill, DrillDocument, MergeNotes } from './document.js';
import { readDrillDocument } from './read-document.js';
import type { IsolationLevel } from './isolation.js';

export type MergedDocument = DrillDocument & { drill: { merge: MergeNotes } };

/** A shard's drill.json, read and checked against the published schema; undefined where the report has none. */
const readShard = (dir: string): Promise<DrillDocument | undefined> => readDrillDocument(join(dir, 'drill.json'));

/** Weakest first. */
const ISOLATION_RANK: IsolationLevel[] = ['none', 'namespace', 'os-user'];
const byId = (a: DatabaseDrill, b: DatabaseDrill) => (a.databaseId < b.databaseId ? -1 : a.databaseId > b.databaseId ? 1 : 0);

/**
 * The organization's drill document from its shards' reports (cli-contract 9.15): every database once,
 * sorted by id as one run lists them; the shards named by their i/n, the ones missing from the split,
 * the databases reported twice and the time span the shards ran over.
 */
export async function mergeReports(dirs: string[]): Promise<MergedDocument> {
  const read: Array<{ dir: string; doc: DrillDocument }> = [];
  const missingReports: string[] = [];
  for (const dir of dirs) {
    const doc = await readShard(dir);
    if (doc) read.push({ dir, doc });
    else missingReports.push(dir);
  }
  if (!read.length)
    throw new UsageError(`None of ${dirs.join(', ')} holds a drill.json.`, 'Give the --report directories of the shards (each holds drill.json).');

  const split = (doc: DrillDocument) => (doc.drill.shard ?? '1/1').split('/').map(Number) as [number, number];
  const counts = [...new Set(read.map(({ doc }) => split(doc)[1]))];
  if (counts.length > 1) {
    throw new UsageError(
      `The reports come from different splits (${read.map(({ dir, doc }) => `${dir}: ${doc.drill.shard ?? 'no --shard'}`).join(', ')}): merge the shards of one run.`,
    );
  }
  const n = counts[0]!;
  const seen = new Map<number, string>();
  for (const { dir, doc } of read) {
    const i = split(doc)[0];
    if (seen.has(i)) throw new UsageError(`Shard ${i}/${n} is given twice: ${seen.get(i)} and ${dir}.`);
    seen.set(i, dir);
  }
  const missingShards = Array.from({ length: n }, (_, k) => k + 1)
    .filter((i) => !seen.has(i))
    .map((i) => `${i}/${n}`);

  // The later report wins a database reported twice (a shard run again after a failure).
  const latestFirst = [...read].sort((a, b) => Date.parse(b.doc.drill.finishedAt) - Date.parse(a.doc.drill.finishedAt));
  const databases = new Map<string, DatabaseDrill>();
  const duplicates = new Set<string>();
  for (const { doc } of latestFirst) {
    for (const db of doc.drill.databases) {
      if (databases.has(db.databaseId)) duplicates.add(db.databaseId);
      else databases.set(db.databaseId, db);
    }
  }
  const merged = [...databases.values()].sort(byId);
  const starts = read.map(({ doc }) => doc.drill.startedAt).sort();
  const ends = read.map(({ doc }) => doc.drill.finishedAt).sort();
  const same = <T>(values: T[]): T | null => (values.every((v) => v === values[0]) ? values[0]! : null);
  const failed = merged.filter((d) => d.result === 'failed').length;
  // A shard cut short by a signal or --deadline: its databases not run are counted apart, neither passed nor failed.
  const notRun = merged.filter((d) => d.result === 'not_run').length;
  return {
    drill: {
      startedAt: starts[0]!,
      finishedAt: ends.at(-1)!,
      shard: null,
      scratch: same(read.map(({ doc }) => doc.drill.scratch)) ?? read[0]!.doc.drill.scratch,
      serverVersion: same(read.map(({ doc }) => doc.drill.serverVersion)),
      // The organization's drills were as isolated as the least isolated shard; unknown (an older svc's report, a DSN) is null.
      isolation: read
        .map(({ doc }) => doc.drill.isolation ?? null)
        .reduce((a, b) => (a === null || b === null ? null : ISOLATION_RANK.indexOf(a) <= ISOLATION_RANK.indexOf(b) ? a : b)),
      databases: merged,
      passed: merged.length - failed - notRun,
      failed,
      ...(notRun ? { notRun } : {}),
      merge: {
        shards: [...seen.keys()].sort((a, b) => a - b).map((i) => `${i}/${n}`),
        missingShards,
        missingReports,
        duplicates: [...duplicates].sort(),
        span: { from: starts[0]!, to: ends.at(-1)! },
      },
    },
  };
}

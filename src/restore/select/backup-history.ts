import type { ApiClient } from '../../api/client.js';
import { getBackup, listDatabaseBackups } from '../../api/operations/backups.js';
import { followPages } from '../../api/paginate.js';
import type { BackupJobDetail, BackupJobSummary } from '../../api/schemas/backups.js';
import { ApiError } from '../../errors.js';

/**
 * How far below the best completion found the history is still read (cli-contract 6, v4): a job
 * enqueued more than this before the newest completedAt found so far is not read, nor anything
 * older. Completion order need not follow enqueue order, so some margin is needed; a day covers any
 * backup that runs less than a day, and the rule is documented (docs/restore-and-drills.md).
 */
export const HISTORY_HORIZON_MS = 24 * 3_600_000;

const time = (iso: string | undefined | null) => (iso ? Date.parse(iso) : Number.NaN);

/** Stops the page walk once the horizon is passed: thrown inside followPages' `take`, caught below. */
const STOP = Symbol('history read far enough');

/** a is newer than b: greater completedAt; a tie goes to the job enqueued later, whatever the list order (cli-contract 6). */
function newer(a: BackupJobDetail, b: BackupJobDetail): boolean {
  const dc = time(a.completedAt) - time(b.completedAt);
  if (dc !== 0) return dc > 0;
  const de = time(a.enqueuedAt) - time(b.enqueuedAt);
  if (de !== 0) return de > 0;
  return a.id > b.id;
}

const byEnqueuedDesc = (a: BackupJobSummary, b: BackupJobSummary) => time(b.enqueuedAt) - time(a.enqueuedAt);

/** A page lists oldest first when its first item was enqueued before its last. */
const ascending = (items: BackupJobSummary[]) => items.length > 1 && time(items[0]!.enqueuedAt) < time(items.at(-1)!.enqueuedAt);

/**
 * The newest completed backup with an artifact of a database, completed at or before `limitMs`
 * (+Infinity for --latest), read with a bounded number of requests (cli-contract 6, v4):
 * - the list is read newest first, as api-v1.md's high-watermark keyset pages it (and the sandbox
 *   does). Completed jobs are read with getBackup in descending enqueuedAt, and the walk (pages
 *   included) stops at the first job enqueued more than HISTORY_HORIZON_MS before the best
 *   completedAt found so far;
 * - a service that lists oldest first cannot be read that way (its newest job is on its last
 *   page): where the first page is in ascending order, or a later page holds a job newer than an
 *   earlier page's, every page is read, then the same rule applies to the whole list. The choice
 *   stays right; only the list's cost grows with the history, and --verbose says so;
 * - a listed job that answers 404 (removed by retention since the list was read) is skipped.
 */
export async function newestInHistory(api: ApiClient, databaseId: string, limitMs: number): Promise<BackupJobDetail | undefined> {
  const log = (line: string) => api.debug(`selection ${databaseId}: ${line}`);
  const details = new Map<string, BackupJobDetail | 'gone'>();
  let best: BackupJobDetail | undefined;
  let listed = 0;
  let pages = 0;

  const read = async (job: BackupJobSummary): Promise<BackupJobDetail | 'gone'> => {
    const known = details.get(job.id);
    if (known) return known;
    let got: BackupJobDetail | 'gone';
    try {
      got = (await api.send(getBackup(job.id))).data;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      log(`${job.id} is listed but getBackup answered 404 (removed by retention since the list was read?); skipped`);
      got = 'gone';
    }
    details.set(job.id, got);
    return got;
  };

  /** Considers jobs newest enqueued first; throws STOP at the first one past the horizon. */
  const visit = async (jobs: BackupJobSummary[]) => {
    for (const job of jobs) {
      if (best && time(job.enqueuedAt) < time(best.completedAt) - HISTORY_HORIZON_MS) {
        log(`stopped at ${job.id}, enqueued ${job.enqueuedAt}: more than 24h before ${best.id} completed (${best.completedAt})`);
        throw STOP;
      }
      // A job enqueued after the limit cannot have completed by then.
      if (job.state !== 'completed' || time(job.enqueuedAt) > limitMs) continue;
      const d = await read(job);
      if (d === 'gone' || d.state !== 'completed' || !d.artifact || Number.isNaN(time(d.completedAt)) || time(d.completedAt) > limitMs) continue;
      if (!best || newer(d, best)) best = d;
    }
  };

  let whole: BackupJobSummary[] | undefined;
  let oldestSeen = Number.POSITIVE_INFINITY;
  const page = async (cursor: string | undefined) => {
    const r = await api.send(listDatabaseBackups(databaseId, { cursor }));
    return { body: r.data as Record<string, unknown>, requestId: r.requestId };
  };
  try {
    await followPages({ first: await page(undefined), itemsKey: 'backupJobs', startCursor: undefined, fetchPage: page }, async (raw) => {
      const items = raw as BackupJobSummary[];
      pages += 1;
      listed += items.length;
      if (!whole) {
        const outOfOrder = pages === 1 ? ascending(items) : items.some((j) => time(j.enqueuedAt) > oldestSeen);
        if (outOfOrder) {
          log(`the service does not list backups newest first; reading the whole list before choosing`);
          whole = [];
        }
      }
      if (whole) {
        for (const j of items) whole.push(j);
        return;
      }
      for (const j of items) oldestSeen = Math.min(oldestSeen, time(j.enqueuedAt));
      await visit([...items].sort(byEnqueuedDesc));
    });
    // The pages visited before the order broke have given what they hold to `best` already.
    if (whole) await visit(whole.sort(byEnqueuedDesc));
  } catch (err) {
    if (err !== STOP) throw err;
  }
  const reads = details.size;
  log(
    `${reads} getBackup read${reads === 1 ? '' : 's'} of ${listed} listed job${listed === 1 ? '' : 's'} (${pages} page${pages === 1 ? '' : 's'}); chose ${best?.id ?? 'none'}`,
  );
  return best;
}

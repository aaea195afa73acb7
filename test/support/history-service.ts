/**
 * A fake backup service on loopback for tests of backup selection and pacing that the sandbox cannot
 * stage: a history listed oldest first, jobs that all completed at the same instant, a listed job
 * that answers 404 (removed by retention between the list and the read), and a small fixed-window
 * rate limit that may or may not announce itself in RateLimit-* headers. It serves what a dry-run
 * drill and `backups list` ask for: getProfile, listDatabases, getDatabase, listDatabaseBackups
 * (keyset pages, newest or oldest first) and getBackup. Every request is recorded.
 */
import type { BackupJobDetail } from '../../src/api/schemas/backups.js';
import { fixture } from './fixtures.js';
import { json, LoopbackServer, type Exchange, type Reply } from './loopback-server.js';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export interface HistoryDatabase {
  id: string;
  jobs: BackupJobDetail[];
}

export interface HistoryServiceOptions {
  databases: HistoryDatabase[];
  /** The list's order by enqueuedAt. Default newest first, as api-v1.md's high-watermark keyset. */
  order?: 'newest-first' | 'oldest-first';
  pageSize?: number;
  /** Listed, but getBackup answers 404. */
  vanished?: string[];
  /** A fixed window per `windowMs`, from the first request; `headers: false` sends only 429 + Retry-After. */
  rateLimit?: { limit: number; windowMs: number; headers: boolean };
}

/**
 * `n` scheduled jobs of a database every `cadenceHours`, oldest first, the newest enqueued at `newestAt`;
 * each started 3 s after it was enqueued and completed `takesMs` later (or all at `allCompletedAt`).
 */
export function history(
  databaseId: string,
  n: number,
  opts: { newestAt: number; cadenceHours?: number; takesMs?: number; allCompletedAt?: number },
): BackupJobDetail[] {
  const cadence = (opts.cadenceHours ?? 6) * HOUR;
  const width = Math.max(4, String(n).length);
  return Array.from({ length: n }, (_, i) => {
    const enqueued = opts.newestAt - (n - 1 - i) * cadence;
    const completed = opts.allCompletedAt ?? enqueued + 3000 + (opts.takesMs ?? 20 * 60_000);
    const id = `bj_${databaseId.replace(/^db_/, '')}_${String(i + 1).padStart(width, '0')}`;
    const prefix = `org_acme/${databaseId}/${id}`;
    return {
      id,
      organizationId: 'org_acme',
      protectedDatabaseId: databaseId,
      state: 'completed',
      trigger: 'scheduled',
      attempt: 0,
      enqueuedAt: iso(enqueued),
      claimedAt: iso(enqueued + 2000),
      startedAt: iso(enqueued + 3000),
      completedAt: iso(completed),
      artifact: {
        artifactKey: `${prefix}/dump.pgcustom`,
        manifestObjectKey: `${prefix}/manifest.json`,
        sizeBytes: 95129,
        checksumSha256: 'a'.repeat(64),
        recordedAt: iso(completed),
      },
    } satisfies BackupJobDetail;
  });
}

export class HistoryService {
  readonly server = new LoopbackServer();
  /** The rate-limit window (1, 2, ...) of each 429 sent. */
  readonly tooMany: number[] = [];
  /** Rate-limit windows begun so far. */
  windows = 0;
  #windowStart: number | undefined;
  #count = 0;

  constructor(readonly opts: HistoryServiceOptions) {}

  async start(): Promise<this> {
    await this.server.start();
    this.server.otherwise((e) => this.#answer(e));
    return this;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  get baseUrl(): string {
    return this.server.baseUrl;
  }

  /** The requests below /api/v1 so far, as `GET /backups/bj_x`. */
  get requests(): string[] {
    return this.server.exchanges.map((e) => `${e.method} ${e.url.pathname.replace('/api/v1', '')}`);
  }

  #answer(e: Exchange): Reply {
    const limited = this.#limit();
    if ('reply' in limited) return limited.reply;
    const reply = this.#route(e);
    if (reply.kind === 'respond') reply.headers = { ...reply.headers, ...limited.headers };
    return reply;
  }

  #limit(): { reply: Reply } | { headers: Record<string, string> } {
    const rl = this.opts.rateLimit;
    if (!rl) return { headers: {} };
    const now = Date.now();
    if (this.#windowStart === undefined || now >= this.#windowStart + rl.windowMs) {
      this.#windowStart = now;
      this.#count = 0;
      this.windows += 1;
    }
    const reset = String(Math.max(1, Math.ceil((this.#windowStart + rl.windowMs - now) / 1000)));
    if (this.#count >= rl.limit) {
      this.tooMany.push(this.windows);
      const headers = {
        'retry-after': reset,
        ...(rl.headers ? { 'ratelimit-limit': String(rl.limit), 'ratelimit-remaining': '0', 'ratelimit-reset': reset } : {}),
      };
      return { reply: json(429, { error: { code: 'rate_limited', message: 'Rate limit exceeded.', requestId: 'req_rl' } }, headers) };
    }
    this.#count += 1;
    return {
      headers: rl.headers ? { 'ratelimit-limit': String(rl.limit), 'ratelimit-remaining': String(rl.limit - this.#count), 'ratelimit-reset': reset } : {},
    };
  }

  #database(id: string) {
    return { ...(fixture('database-get') as { database: Record<string, unknown> }).database, id, name: id.replace(/^db_/, '').replace(/_/g, '-') };
  }

  #route(e: Exchange): Reply {
    const path = e.url.pathname.replace(/^\/api\/v1/, '');
    const cursor = Number(e.url.searchParams.get('cursor') ?? 0);
    const size = this.opts.pageSize ?? 20;
    const page = <T>(items: T[]) => ({ items: items.slice(cursor, cursor + size), nextCursor: cursor + size < items.length ? String(cursor + size) : null });
    const notFound = (what: string) => json(404, { error: { code: 'not_found', message: `${what} not found.`, requestId: 'req_nf' } });
    if (path === '/profile') return json(200, fixture('profile'));
    if (path === '/databases') {
      const p = page(this.opts.databases.map((d) => this.#database(d.id)));
      return json(200, { databases: p.items, nextCursor: p.nextCursor });
    }
    const db = /^\/databases\/([^/]+)(\/backups)?$/.exec(path);
    if (db) {
      const found = this.opts.databases.find((d) => d.id === db[1]);
      if (!found) return notFound('Protected database');
      if (!db[2]) return json(200, { database: this.#database(found.id) });
      const jobs = [...found.jobs].sort((a, b) => Date.parse(a.enqueuedAt) - Date.parse(b.enqueuedAt));
      if ((this.opts.order ?? 'newest-first') === 'newest-first') jobs.reverse();
      const p = page(
        jobs.map((j) => ({
          id: j.id,
          protectedDatabaseId: j.protectedDatabaseId,
          state: j.state,
          trigger: j.trigger,
          attempt: j.attempt,
          enqueuedAt: j.enqueuedAt,
          claimedAt: j.claimedAt ?? null,
        })),
      );
      return json(200, { backupJobs: p.items, nextCursor: p.nextCursor });
    }
    const job = /^\/backups\/([^/]+)$/.exec(path);
    if (job) {
      const found = this.opts.databases.flatMap((d) => d.jobs).find((j) => j.id === job[1]);
      if (!found || this.opts.vanished?.includes(found.id)) return notFound('Backup job');
      return json(200, found);
    }
    return notFound('Route');
  }
}

import type pg from 'pg';
import { InterruptedError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';
import { withSession, type SessionConfig } from '../pg/session.js';
import { reason } from './sql-checks.js';

/** A query of the data checks that failed (the server's or the connection's reason): that check fails, the drill goes on. */
export class DataQueryError extends Error {}

/**
 * One connection of the drill's own (node-postgres, in process) for the data check and the row
 * count (data-present.ts, rows-match.ts), as the role the database was restored as: opened by the
 * first query, closed by close(). The two checks used to start a psql each: a process, and SCRAM
 * over TCP, twice per database.
 */
export class DataSession {
  #client: Promise<pg.Client> | undefined;
  #release: (() => void) | undefined;
  #done: Promise<unknown> | undefined;

  constructor(
    private readonly config: SessionConfig,
    private readonly scrubber: SecretScrubber,
    private readonly signal: AbortSignal,
  ) {}

  /** The rows of `sql` as arrays; `values` bound as parameters, never spliced. */
  async rows(sql: string, values: unknown[] = []): Promise<unknown[][]> {
    try {
      const client = await this.#open();
      return (await client.query({ text: sql, values, rowMode: 'array' })).rows as unknown[][];
    } catch (err) {
      if (this.signal.aborted) throw new InterruptedError('Interrupted while the data checks were running.');
      throw new DataQueryError(this.scrubber.scrub(reason(err)));
    }
  }

  /** Ends the connection, if one was opened; never throws. */
  async close(): Promise<void> {
    this.#release?.();
    await this.#done?.catch(() => undefined);
  }

  // withSession keeps the connection until its callback ends: the callback ends at close().
  #open(): Promise<pg.Client> {
    this.#client ??= new Promise<pg.Client>((resolve, reject) => {
      this.#done = withSession(this.config, this.signal, (client) => {
        resolve(client);
        return new Promise<void>((release) => (this.#release = release));
      }).catch(reject);
    });
    return this.#client;
  }
}

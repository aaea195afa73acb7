import { allDatabases } from '../../api/all-databases.js';
import { ApiError, UsageError } from '../../errors.js';
import type { Session } from '../../session.js';

/**
 * Where a database id is expected, a database's name is accepted when exactly one database of the
 * organization has it (cli-contract 4, v5), as gh accepts names. Ids are tried first: only when the
 * service answers 404 for the value given is the organization's list read, once (every page), and
 * the run is done again with the id, said on stderr. Several databases of that name is exit 2
 * naming their ids; none leaves the 404 as it was.
 */
export async function withDatabaseName<O>(opts: O, session: Session, run: (opts: O) => Promise<void>): Promise<void> {
  try {
    await run(opts);
  } catch (err) {
    const ref = (opts as { databaseId?: unknown }).databaseId;
    if (!(err instanceof ApiError && err.status === 404 && typeof ref === 'string')) throw err;
    // A list the token may not read (or that fails) leaves the 404 as the answer; several of that name do not.
    const id = await idOfName(session, ref).catch((e: unknown) => {
      if (e instanceof UsageError) throw e;
      return undefined;
    });
    if (id === undefined) throw err;
    await run({ ...opts, databaseId: id });
  }
}

async function idOfName(session: Session, name: string): Promise<string | undefined> {
  const api = await session.api();
  const all = await allDatabases(api);
  const ids = [...new Set(all.filter((d) => d.name === name).map((d) => d.id))];
  if (ids.length > 1) {
    throw new UsageError(`No database has the id "${name}", and ${ids.length} databases are named so: ${ids.join(', ')}.`, 'Name one by its id.');
  }
  if (ids[0] !== undefined) session.ui.info(`No database has the id "${name}"; one is named so: using ${ids[0]}.`);
  return ids[0];
}

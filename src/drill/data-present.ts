import { DataQueryError, type DataSession } from './data-session.js';

/**
 * Whether at least one restored table has a row (cli-contract 9, data_present): asked of every user
 * table with EXISTS, which reads one row at most, whatever ANALYZE did or did not run.
 */
const SQL = `
SELECT coalesce(bool_or((xpath('/row/e/text()', query_to_xml(format('SELECT EXISTS (SELECT 1 FROM %I.%I) AS e', n.nspname, c.relname), false, true, '')))[1]::text = 'true'), false)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%';`;

/** true or false; or, where the query itself failed, the reason (that database's data_present fails, the drill goes on). */
export async function dataPresent(session: DataSession): Promise<boolean | { failed: string }> {
  try {
    return (await session.rows(SQL))[0]?.[0] === true;
  } catch (err) {
    if (err instanceof DataQueryError) return { failed: err.message };
    throw err;
  }
}

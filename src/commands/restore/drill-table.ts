import type { DatabaseDrill } from '../../drill/document.js';
import { drillRow } from '../../drill/report-files.js';
import { stateStyle } from '../../output/format.js';
import type { Column } from '../../output/writer.js';

/**
 * The database's id and its name in columns of their own, so that on a narrow terminal the name
 * gives way (shortened, then left out) and the id stays whole; then the backup's id, the age and the
 * recovery time are left out. The result and the failed check stay at every width: the failed check
 * is what an operator reads the table for (cli-contract 4, v4).
 */
export const drillColumns: Column<DatabaseDrill>[] = [
  { header: 'DATABASE', value: (d) => d.databaseId },
  { header: 'NAME', value: (d) => (d.name && d.name !== d.databaseId ? d.name : '-'), shrink: true, drop: 1 },
  { header: 'BACKUP', value: (d) => drillRow(d).backup, drop: 2 },
  { header: 'AGE', value: (d) => drillRow(d).age, drop: 3 },
  { header: 'RECOVERY', value: (d) => drillRow(d).recovery, drop: 4 },
  { header: 'RESULT', value: (d) => d.result, style: (d) => stateStyle(d.result) },
  { header: 'FAILED CHECK', short: 'FAILED', value: (d) => drillRow(d).failed },
];

/** The reason shown in the table with --quiet, cut to this many characters. */
const WHY_CHARS = 60;

/**
 * With --quiet no progress line says why a database failed, so the table does (cli-contract 9, v5):
 * the failure's message, short, and shortened further on a narrow terminal.
 */
export const quietColumns: Column<DatabaseDrill>[] = [
  ...drillColumns,
  {
    header: 'WHY',
    value: (d) => {
      const why = d.failure?.message.replace(/\s+/g, ' ') ?? '';
      return why.length > WHY_CHARS ? `${why.slice(0, WHY_CHARS - 1)}…` : why;
    },
    shrink: true,
  },
];

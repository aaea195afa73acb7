import type { DatabaseDrill } from '../../drill/document.js';
import { drillRow } from '../../drill/report-files.js';
import type { Column } from '../../output/writer.js';

/**
 * The database's id and its name in columns of their own, so that on a narrow terminal the name
 * gives way (shortened, then left out) and the id stays whole; then the recovery time, the age and
 * the backup's id are left out, before the result and the failed check.
 */
export const drillColumns: Column<DatabaseDrill>[] = [
  { header: 'DATABASE', value: (d) => d.databaseId },
  { header: 'NAME', value: (d) => (d.name && d.name !== d.databaseId ? d.name : '-'), shrink: true, drop: 1 },
  { header: 'BACKUP', value: (d) => drillRow(d).backup, drop: 3 },
  // The age a drill proved and the recovery time it took appear for every database (never dropped).
  { header: 'AGE', value: (d) => drillRow(d).age },
  { header: 'RECOVERY', value: (d) => drillRow(d).recovery },
  { header: 'RESULT', value: (d) => d.result },
  { header: 'FAILED CHECK', short: 'FAILED', value: (d) => drillRow(d).failed, drop: 2 },
];

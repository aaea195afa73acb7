import { cleanupAll } from './common.mjs';
import { printTable } from './table.mjs';

/** Runs one row script on its own: `npm run build && node --import tsx bench/<row>.mjs [--quick]`. */
export async function standalone(run) {
  const quick = process.argv.includes('--quick');
  try {
    const rows = await run({ quick, log: (m) => process.stderr.write(`${m}\n`) });
    printTable(rows);
  } finally {
    await cleanupAll();
  }
}

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A `pg_restore -L` file: the dump ids to restore, one a line, in the order to restore them
 * (pg_restore reads the number before each `;` and ignores the rest of the line). Entries left out
 * are not restored; in a serial restore the order of the file is the order of the restore.
 */
export async function writeRestoreList(dir: string, name: string, dumpIds: Iterable<number>): Promise<string> {
  const file = join(dir, `${name}.list`);
  await writeFile(file, [...dumpIds].map((id) => `${id};\n`).join(''), { mode: 0o600 });
  return file;
}

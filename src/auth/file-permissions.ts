import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Warnings for a credentials file, or its directory, that other users can read (cli-contract 2). */
export async function exposureWarnings(credentialsFile: string): Promise<string[]> {
  const warnings: string[] = [];
  const file = await stat(credentialsFile).catch(() => undefined);
  if (file && (file.mode & 0o077) !== 0) {
    warnings.push(`${credentialsFile} can be read by other users (mode ${(file.mode & 0o777).toString(8)}): run chmod 600 ${credentialsFile}`);
  }
  const dir = dirname(credentialsFile);
  const folder = file && (await stat(dir).catch(() => undefined));
  if (folder && (folder.mode & 0o077) !== 0) {
    warnings.push(`${dir} can be listed by other users (mode ${(folder.mode & 0o777).toString(8)}): run chmod 700 ${dir}`);
  }
  return warnings;
}

/**
 * A sandbox data set that serves another archive under one of fixtures/' artifact names (e.g. a dump
 * made from a server of the major under test as `acme-orders`, which db_orders' backups serve): a
 * copy of fixtures/ (api/, sandbox/, artifacts/) with the file and its metadata replaced. The sandbox
 * derives each backup's size and digest from the file it serves, so every backup of it agrees.
 */
import { cpSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from './fixtures.js';
import { artifactInfo } from './seed.js';

export async function writeSandboxDataWithArtifact(dir: string, name: 'acme-orders' | 'billing', archive: string): Promise<void> {
  await writeSandboxDataWithArtifacts(dir, { [name]: archive });
}

/** The same with both archives replaced at once: db_orders' and db_billing's backups each serve their own dump. */
export async function writeSandboxDataWithArtifacts(dir: string, archives: Partial<Record<'acme-orders' | 'billing', string>>): Promise<void> {
  for (const sub of ['api', 'sandbox', 'artifacts']) cpSync(join(FIXTURES_DIR, sub), join(dir, sub), { recursive: true });
  for (const [name, archive] of Object.entries(archives)) {
    copyFileSync(archive, join(dir, 'artifacts', `${name}.pgdump`));
    writeFileSync(join(dir, 'artifacts', `${name}.json`), `${JSON.stringify(await artifactInfo(archive), null, 2)}\n`);
  }
}

/**
 * `npm run docs`: docs/commands.md and man/svc.1, generated from svc's command tree (src/program.ts),
 * the one source of help, reference and man page. `--check` writes nothing and exits 1 when a
 * committed file differs from what the tree gives now (test/docs.test.ts checks the same).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDocs } from './docs/generate.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const stale: string[] = [];
for (const [file, text] of Object.entries(generateDocs())) {
  const path = join(root, file);
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  if (check) stale.push(file);
  else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
  }
}
if (stale.length) {
  console.error(`Out of date: ${stale.join(', ')}. Run npm run docs.`);
  process.exit(1);
}

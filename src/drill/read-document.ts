import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { DrillDocument } from './document.js';
import { drillDocumentSchema } from './document-schema.js';

/**
 * A drill.json read and checked against the published schema (docs/drill.schema.json): what cannot
 * be read or is not a drill document is exit 2 naming the file and the field. undefined where the
 * file does not exist.
 */
export async function readDrillDocument(path: string): Promise<DrillDocument | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`Cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${path} is not JSON: is it a drill report (svc restore drill --report)?`);
  }
  const checked = drillDocumentSchema.safeParse(json);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new UsageError(`${path} is not a drill report (docs/drill.schema.json): ${issue.path.join('.') || '(top)'}: ${issue.message}.`);
  }
  return json as DrillDocument;
}

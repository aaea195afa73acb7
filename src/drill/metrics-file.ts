import { lstat, readFile } from 'node:fs/promises';
import type { UserFiles } from '../output/user-file.js';
import type { DrillDocument } from './document.js';
import { drillMetrics, lastSuccesses } from './metrics.js';

/**
 * --metrics-file (cli-contract 9.14): node_exporter's textfile collector reads every *.prom file of
 * its directory, so the file is written to a temporary file beside it and renamed (its documentation
 * asks for this: a half-written file would be scraped), by the one writer of user files. The previous
 * file's last-success times are kept for the databases of this run that did not pass.
 */
export async function writeMetricsFile(path: string, doc: DrillDocument, files: UserFiles): Promise<void> {
  let previous = '';
  try {
    if ((await lstat(path)).isFile()) previous = await readFile(path, 'utf8');
  } catch {
    // No earlier file: nothing to keep.
  }
  await files.text(path, drillMetrics(doc, lastSuccesses(previous)));
}

import type { RestoreExecutionCoordinates } from '../../api/schemas/restores.js';
import { formatBytes } from '../../output/format.js';
import { byteProgress } from '../../ui/progress.js';
import { downloadArtifact, type DownloadResult } from './download.js';
import type { RestorePlan } from '../plan.js';
import type { RestoreDeps } from '../run.js';

/**
 * Step 4 of a run with its progress on stderr: the presigned artifact into `dir`, counted and
 * hashed on the way (size and SHA-256 checked, no second pass), ending on the verified line.
 */
export async function fetchArtifact(
  coords: RestoreExecutionCoordinates,
  dir: string,
  plan: Pick<RestorePlan, 'connections'>,
  deps: Pick<RestoreDeps, 'reporter' | 'signal' | 'http' | 'sleep' | 'random'>,
): Promise<DownloadResult> {
  const ui = deps.reporter;
  const progress = await byteProgress(ui, 'Downloading artifact');
  const artifact = await downloadArtifact({
    url: coords.presignedS3Url,
    expectedSize: coords.expectedSizeBytes,
    expectedSha256: coords.expectedSha256,
    dir,
    signal: deps.signal,
    connections: plan.connections,
    maxRetries: deps.http.maxRetries,
    timeoutMs: deps.http.timeoutMs,
    env: deps.http.env,
    sleep: deps.sleep,
    random: deps.random,
    onProgress: (received, total) => progress.update(received, total),
    onNotice: (m) => ui.warn(m),
    onRetry: (m) => ui.info(m),
  }).catch((err: unknown) => {
    progress.fail('Download stopped');
    throw err;
  });
  progress.succeed(`Verified ${formatBytes(artifact.bytes)}`, `SHA-256 ${artifact.sha256}`);
  return artifact;
}

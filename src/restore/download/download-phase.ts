import type { CreateRestoreResponse } from '../../api/schemas/restores.js';
import type { RunContext } from '../run-context.js';
import type { RestoreSource } from '../run-types.js';
import { redactedDsn } from '../target/target.js';
import type { DownloadResult } from './download.js';
import { fetchArtifact } from './fetch-artifact.js';
import { assertFreeSpace } from './workdir.js';

/** The createRestore phase: the job from the service, or the one `restore run` was handed. Its URL and lock token become secrets. */
export async function createPhase(ctx: RunContext, source: RestoreSource): Promise<CreateRestoreResponse> {
  const { plan, deps } = ctx;
  const job = source.created ?? (await source.create!(redactedDsn(plan.target)));
  const coords = job.execution;
  deps.scrubber.add(coords.presignedS3Url);
  deps.scrubber.add(coords.lockToken);
  Object.assign(ctx.facts, { restoreJobId: job.restoreJob.id, expectedBytes: coords.expectedSizeBytes, expectedSha256: coords.expectedSha256 });
  if (!source.created) deps.reporter.info(`Restore job ${job.restoreJob.id} created (${plan.mode}).`);
  return job;
}

/** The download phase: the artifact, sized and hashed as it arrives, into a private temp dir of the work dir. */
export async function downloadPhase(ctx: RunContext, job: CreateRestoreResponse): Promise<{ dir: string; artifact: DownloadResult }> {
  const { plan, deps } = ctx;
  const coords = job.execution;
  await assertFreeSpace(plan.workDir, coords.expectedSizeBytes, 'artifact_exceeds_disk');
  const dir = await ctx.scope.tempDir(plan.workDir, 'svc-restore-');
  const artifact = await fetchArtifact(coords, dir, plan, deps);
  Object.assign(ctx.facts, { bytes: artifact.bytes, computedSha256: artifact.sha256, connections: artifact.connections });
  return { dir, artifact };
}

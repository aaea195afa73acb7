import type { BackupJobDetail } from '../api/schemas/backups.js';
import { fail } from './data-reader.js';

const STEPS = ['enqueuedAt', 'claimedAt', 'startedAt', 'completedAt'] as const;

/**
 * A backup's times follow its states (enqueued, claimed, started, completed), and a completed backup
 * has a completedAt that no other completed backup of its database shares: the newest completed
 * backup of a database (greatest completedAt, cli-contract 7 step 0) is then always one backup.
 * `fileOf` names the data file a job came from.
 */
export function checkBackupTimes(jobs: BackupJobDetail[], fileOf: (jobId: string) => string): void {
  const completedAt = new Map<string, Map<number, string>>();
  for (const job of jobs) {
    let previous: { step: string; at: number } | undefined;
    for (const step of STEPS) {
      const value = job[step];
      if (value === undefined || value === null) continue;
      const at = Date.parse(value);
      if (previous && at < previous.at) fail(fileOf(job.id), `backup ${job.id}: ${step} ${value} precedes its ${previous.step}`);
      previous = { step, at };
    }
    if (job.state !== 'completed') continue;
    if (!job.completedAt) fail(fileOf(job.id), `backup ${job.id} is completed but has no completedAt`);
    const times = completedAt.get(job.protectedDatabaseId) ?? new Map<number, string>();
    completedAt.set(job.protectedDatabaseId, times);
    const at = Date.parse(job.completedAt);
    const twin = times.get(at);
    if (twin) fail(fileOf(job.id), `backups ${twin} and ${job.id} of ${job.protectedDatabaseId} both completed at ${job.completedAt}: which is newest?`);
    times.set(at, job.id);
  }
}

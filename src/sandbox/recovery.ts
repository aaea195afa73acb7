import type { RecoveryWindowDecision } from '../api/schemas/recovery.js';

/** Seconds in the style of the recovery fixtures: "15 minutes", "3 hours". */
function duration(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return plural(seconds, 'second');
  if (seconds < 2 * 3600) return plural(Math.round(seconds / 60), 'minute');
  if (seconds < 2 * 86400) return plural(Math.round(seconds / 3600), 'hour');
  return plural(Math.round(seconds / 86400), 'day');
}

/**
 * getRecoverySummary for a database without a summary fixture, from its windows (oldest snapshot first).
 */
export function summarizeWindows(databaseId: string, windows: RecoveryWindowDecision[]) {
  const latest = windows.at(-1) ?? null;
  return latest
    ? { databaseId, latest, reason: null, summary: latest.summary, recommendedAction: latest.recommendedAction }
    : {
        databaseId,
        latest: null,
        reason: 'no_recovery_window',
        summary: 'No recovery window has been recorded for this database.',
        recommendedAction: 'Run a backup and a restore drill to establish a recovery window.',
      };
}

/**
 * getRecoveryCandidate: the latest restore-ready window (of `windows`, oldest snapshot first) whose
 * snapshot precedes the incident; the gap is measured from its validated end.
 */
export function recoveryCandidate(databaseId: string, windows: RecoveryWindowDecision[], incidentTime: string) {
  const incident = Date.parse(incidentTime);
  const window = windows.filter((w) => w.restoreAvailable && Date.parse(w.snapshotTime) <= incident).at(-1);
  if (!window) {
    return {
      databaseId,
      incidentTime,
      recommended: null,
      reason: 'no_restore_ready_window',
      summary: 'No restore-ready snapshot precedes the incident time.',
      recommendedAction: 'Pick a later incident time, or check the recovery summary for this database.',
    };
  }
  const gap = Math.max(0, Math.round((incident - Date.parse(window.validatedThrough)) / 1000));
  return {
    databaseId,
    incidentTime,
    recommended: { ...window, gapBeforeIncidentSeconds: gap },
    reason: null,
    summary:
      gap === 0
        ? `The incident falls inside window ${window.windowId}, validated through ${window.validatedThrough}.`
        : `The closest restore-ready candidate is ${duration(gap)} before the incident.`,
    recommendedAction: `Restore window ${window.windowId} into a new database and compare.`,
  };
}

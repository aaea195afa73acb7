/**
 * The recovery point of a chosen backup (cli-contract 7.10, v4): its age runs from startedAt (the
 * dump's snapshot), from completedAt only where the service gives no startedAt, and the selection
 * line says which.
 */
import { describe, expect, it } from 'vitest';
import { backupAgeSeconds, describeSelection, recoveryPoint, type SelectedBackup } from '../../src/restore/select/backup-selection.js';

const NOW = new Date('2026-11-26T12:00:00Z');
const chosen = (startedAt: string | null, completedAt: string | null): SelectedBackup => ({
  selection: { rule: 'latest', backupJobId: 'bj_0042', startedAt, completedAt },
  backup: undefined,
  reason: 'the newest completed backup of orders-prod (db_orders)',
});

describe('the recovery point', () => {
  it('a backup that took 5 hours: its age is 6 h, from its start, not 1 h from its completion', () => {
    const s = chosen('2026-11-26T06:00:00Z', '2026-11-26T11:00:00Z');
    expect(recoveryPoint(s.selection)).toEqual({ at: '2026-11-26T06:00:00Z', from: 'startedAt' });
    expect(backupAgeSeconds(s.selection, NOW)).toBe(6 * 3600);
    expect(describeSelection(s, NOW)).toBe(
      'Using bj_0042, started 2026-11-26T06:00:00Z, completed 2026-11-26T11:00:00Z (6h ago, age from its start): the newest completed backup of orders-prod (db_orders).',
    );
  });

  it('no startedAt from the service: the age from its completion, and the line says so', () => {
    const s = chosen(null, '2026-11-26T11:00:00Z');
    expect(recoveryPoint(s.selection)).toEqual({ at: '2026-11-26T11:00:00Z', from: 'completedAt' });
    expect(backupAgeSeconds(s.selection, NOW)).toBe(3600);
    expect(describeSelection(s, NOW)).toBe(
      'Using bj_0042, completed 2026-11-26T11:00:00Z (1h ago; the service gives no start time, so the age is from its completion): the newest completed backup of orders-prod (db_orders).',
    );
  });

  it('a backup the token may not read: no times, no age', () => {
    const s = chosen(null, null);
    expect(backupAgeSeconds(s.selection, NOW)).toBeNull();
    expect(describeSelection(s, NOW)).toBe('Using bj_0042: the newest completed backup of orders-prod (db_orders).');
  });
});

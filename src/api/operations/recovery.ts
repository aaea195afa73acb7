import { operation } from '../operation.js';
import { recoveryRows } from '../operation-table/recovery.js';
import { DATABASE_ID, databaseNotFound } from './common.js';

export const getRecoverySummary = (databaseId: string) =>
  operation(recoveryRows, 'getRecoverySummary', { params: { databaseId }, notFound: databaseNotFound(databaseId) });

export const getRecoveryCandidate = (databaseId: string, incidentTime: string) =>
  operation(recoveryRows, 'getRecoveryCandidate', { params: { databaseId }, query: { incidentTime }, notFound: databaseNotFound(databaseId) });

export const getRecoveryWindowProof = (windowId: string) =>
  operation(recoveryRows, 'getRecoveryWindowProof', {
    params: { windowId },
    notFound: {
      what: `recovery window ${windowId}`,
      list: [
        ['recovery', 'summary', DATABASE_ID],
        ['recovery', 'candidate', DATABASE_ID, '--incident-time', { placeholder: 'time' }],
      ],
      tool: 'get_recovery_summary',
    },
  });

import type { Operation } from '../client.js';
import { recoveryCandidateResponse, recoverySummaryResponse, recoveryWindowProofResponse } from '../schemas/recovery.js';
import { DATABASE_ID, databaseNotFound, seg } from './common.js';

export const getRecoverySummary = (databaseId: string) =>
  ({
    name: 'getRecoverySummary',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/recovery/summary`,
    notFound: databaseNotFound(databaseId),
    response: recoverySummaryResponse,
  }) satisfies Operation;

export const getRecoveryCandidate = (databaseId: string, incidentTime: string) =>
  ({
    name: 'getRecoveryCandidate',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/recovery/candidate`,
    notFound: databaseNotFound(databaseId),
    query: { incidentTime },
    response: recoveryCandidateResponse,
  }) satisfies Operation;

export const getRecoveryWindowProof = (windowId: string) =>
  ({
    name: 'getRecoveryWindowProof',
    method: 'GET',
    path: `/recovery/windows/${seg(windowId)}/proof`,
    notFound: {
      what: `recovery window ${windowId}`,
      list: [
        ['recovery', 'summary', DATABASE_ID],
        ['recovery', 'candidate', DATABASE_ID, '--incident-time', { placeholder: 'time' }],
      ],
      tool: 'get_recovery_summary',
    },
    response: recoveryWindowProofResponse,
  }) satisfies Operation;

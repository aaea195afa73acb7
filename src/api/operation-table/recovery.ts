import { recoveryCandidateResponse, recoverySummaryResponse, recoveryWindowProofResponse } from '../schemas/recovery.js';
import type { OperationRows } from './row.js';

export const recoveryRows = {
  getRecoverySummary: {
    method: 'GET',
    path: '/databases/:databaseId/recovery/summary',
    scope: 'databases:read',
    query: [],
    success: 200,
    response: recoverySummaryResponse,
  },
  getRecoveryCandidate: {
    method: 'GET',
    path: '/databases/:databaseId/recovery/candidate',
    scope: 'databases:read',
    query: ['incidentTime'],
    success: 200,
    response: recoveryCandidateResponse,
  },
  getRecoveryWindowProof: {
    method: 'GET',
    path: '/recovery/windows/:windowId/proof',
    scope: 'databases:read',
    query: [],
    success: 200,
    response: recoveryWindowProofResponse,
  },
} as const satisfies OperationRows;

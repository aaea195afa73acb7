import type { Operation } from '../client.js';
import { recoveryCandidateResponse, recoverySummaryResponse, recoveryWindowProofResponse } from '../schemas/recovery.js';
import { seg } from './common.js';

export const getRecoverySummary = (databaseId: string) =>
  ({
    name: 'getRecoverySummary',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/recovery/summary`,
    response: recoverySummaryResponse,
  }) satisfies Operation;

export const getRecoveryCandidate = (databaseId: string, incidentTime: string) =>
  ({
    name: 'getRecoveryCandidate',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/recovery/candidate`,
    query: { incidentTime },
    response: recoveryCandidateResponse,
  }) satisfies Operation;

export const getRecoveryWindowProof = (windowId: string) =>
  ({
    name: 'getRecoveryWindowProof',
    method: 'GET',
    path: `/recovery/windows/${seg(windowId)}/proof`,
    response: recoveryWindowProofResponse,
  }) satisfies Operation;

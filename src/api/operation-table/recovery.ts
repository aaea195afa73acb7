import { recoveryCandidateResponse, recoverySummaryResponse, recoveryWindowProofResponse } from '../schemas/recovery.js';
import { OPERATION_ROUTES as ROUTES } from '../operation-routes.js';
import type { OperationRows } from './row.js';

export const recoveryRows = {
  getRecoverySummary: { ...ROUTES.getRecoverySummary, response: recoverySummaryResponse },
  getRecoveryCandidate: { ...ROUTES.getRecoveryCandidate, response: recoveryCandidateResponse },
  getRecoveryWindowProof: { ...ROUTES.getRecoveryWindowProof, response: recoveryWindowProofResponse },
} as const satisfies OperationRows;

import { getEvidenceResponse, listEvidenceResponse } from '../schemas/evidence.js';
import { OPERATION_ROUTES as ROUTES } from '../operation-routes.js';
import type { OperationRows } from './row.js';

export const evidenceRows = {
  listEvidence: { ...ROUTES.listEvidence, response: listEvidenceResponse },
  getEvidence: { ...ROUTES.getEvidence, response: getEvidenceResponse },
} as const satisfies OperationRows;

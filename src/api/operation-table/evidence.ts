import { getEvidenceResponse, listEvidenceResponse } from '../schemas/evidence.js';
import { PAGE, type OperationRows } from './row.js';

export const evidenceRows = {
  listEvidence: { method: 'GET', path: '/evidence', scope: 'evidence:read', query: ['databaseId', ...PAGE], success: 200, response: listEvidenceResponse },
  getEvidence: { method: 'GET', path: '/evidence/:backupJobId', scope: 'evidence:read', query: [], success: 200, response: getEvidenceResponse },
} as const satisfies OperationRows;

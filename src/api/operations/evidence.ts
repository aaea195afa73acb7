import type { Operation } from '../client.js';
import { getEvidenceResponse, listEvidenceResponse } from '../schemas/evidence.js';
import { seg, type PageParams } from './common.js';

export const listEvidence = (params: PageParams & { databaseId?: string }) =>
  ({ name: 'listEvidence', method: 'GET', path: '/evidence', query: { ...params }, response: listEvidenceResponse }) satisfies Operation;

export const getEvidence = (backupJobId: string) =>
  ({
    name: 'getEvidence',
    method: 'GET',
    path: `/evidence/${seg(backupJobId)}`,
    notFound: { what: `evidence for backup job ${backupJobId}`, list: 'svc evidence list --database <databaseId>' },
    response: getEvidenceResponse,
  }) satisfies Operation;

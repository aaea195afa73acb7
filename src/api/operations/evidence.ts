import type { Operation } from '../client.js';
import { getEvidenceResponse, listEvidenceResponse } from '../schemas/evidence.js';
import { DATABASE_ID, seg, type PageParams } from './common.js';

export const listEvidence = (params: PageParams & { databaseId?: string }) =>
  ({ name: 'listEvidence', method: 'GET', path: '/evidence', query: { ...params }, response: listEvidenceResponse }) satisfies Operation;

export const getEvidence = (backupJobId: string) =>
  ({
    name: 'getEvidence',
    method: 'GET',
    path: `/evidence/${seg(backupJobId)}`,
    notFound: { what: `evidence for backup job ${backupJobId}`, list: [['evidence', 'list', '--database', DATABASE_ID]], tool: 'list_evidence' },
    response: getEvidenceResponse,
  }) satisfies Operation;

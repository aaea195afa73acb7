import { operation } from '../operation.js';
import { evidenceRows } from '../operation-table/evidence.js';
import { DATABASE_ID, type PageParams } from './common.js';

export const listEvidence = (params: PageParams & { databaseId?: string }) => operation(evidenceRows, 'listEvidence', { query: { ...params } });

export const getEvidence = (backupJobId: string) =>
  operation(evidenceRows, 'getEvidence', {
    params: { backupJobId },
    notFound: { what: `evidence for backup job ${backupJobId}`, list: [['evidence', 'list', '--database', DATABASE_ID]], tool: 'list_evidence' },
  });

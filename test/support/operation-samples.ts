import type { Operation } from '../../src/api/client.js';
import type { OperationName } from '../../src/api/operation-table.js';
import * as operations from '../../src/api/operations.js';

/** One call of every operation function of src/api/operations.ts, on the sandbox's data; a new operation without one fails to compile. */
export const samples: Record<OperationName, () => Operation> = {
  getProfile: () => operations.getProfile(),
  listDatabases: () => operations.listDatabases({}),
  getDatabase: () => operations.getDatabase('db_orders'),
  listDestinations: () => operations.listDestinations({ limit: 10 }),
  getDestination: () => operations.getDestination('dst_eu_s3'),
  listDatabaseBackups: () => operations.listDatabaseBackups('db_orders', {}),
  triggerBackup: () => operations.triggerBackup('db_orders', 'contract-trigger-1'),
  getBackup: () => operations.getBackup('bj_0007'),
  listEvidence: () => operations.listEvidence({ databaseId: 'db_orders' }),
  getEvidence: () => operations.getEvidence('bj_0007'),
  createRestore: () =>
    operations.createRestore(
      { backupJobId: 'bj_0007', targetRedactedDsn: 'postgresql://app@127.0.0.1:5432/orders_restored', mode: 'new_database', confirmDestructive: false },
      'contract-restore-1',
    ),
  getRestore: () => operations.getRestore('rj_0001'),
  getRecoverySummary: () => operations.getRecoverySummary('db_orders'),
  getRecoveryCandidate: () => operations.getRecoveryCandidate('db_orders', '2026-11-21T12:00:00Z'),
  getRecoveryWindowProof: () => operations.getRecoveryWindowProof('rw_0003'),
  getMcpToolCatalog: () => operations.getMcpToolCatalog(),
};

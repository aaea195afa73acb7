/**
 * The one operation table of api-v1.md section 4: method, path template, scope, query keys, success
 * status, request and response schema of every operation, each written here and nowhere else. The
 * client's operation functions (operations/), the MCP tools' scopes and outputs (mcp/tools.ts) and the
 * sandbox's routes (sandbox/routes.ts) are derived from it. Its rows live in operation-table/<resource>.ts,
 * so a command builds the zod schemas of its own resource only; this module gathers them all.
 */
import { backupRows } from './operation-table/backups.js';
import { databaseRows } from './operation-table/databases.js';
import { destinationRows } from './operation-table/destinations.js';
import { evidenceRows } from './operation-table/evidence.js';
import { profileRows } from './operation-table/profile.js';
import { recoveryRows } from './operation-table/recovery.js';
import { restoreRows } from './operation-table/restores.js';
import { toolRows } from './operation-table/tools.js';

export type { OperationRow } from './operation-table/row.js';

export const OPERATION_TABLE = {
  ...profileRows,
  ...databaseRows,
  ...destinationRows,
  ...backupRows,
  ...evidenceRows,
  ...restoreRows,
  ...recoveryRows,
  ...toolRows,
} as const;

export type OperationName = keyof typeof OPERATION_TABLE;

/**
 * The route half of the operation table (api-v1.md section 4): method, path template, scope, query
 * keys and success status of every operation, written here and nowhere else. Nothing here builds a
 * schema, so what needs only the routes (shell completion of `svc api` paths, on every Tab) loads
 * no zod; operation-table/<resource>.ts adds each operation's request and response schemas.
 */
const PAGE = ['limit', 'cursor'] as const;

export interface OperationRoute {
  method: 'GET' | 'POST';
  /** Below /api/v1; `:name` segments are path parameters. */
  path: string;
  /** The scope the operation needs (api-v1.md 4); null: a valid key without scopes is enough. */
  scope: string | null;
  /** The only query parameters the operation accepts; the sandbox answers anything else with a 400. */
  query: readonly string[];
  success: 200 | 202;
}

export const OPERATION_ROUTES = {
  getProfile: { method: 'GET', path: '/profile', scope: null, query: [], success: 200 },
  listDatabases: { method: 'GET', path: '/databases', scope: 'databases:read', query: PAGE, success: 200 },
  getDatabase: { method: 'GET', path: '/databases/:databaseId', scope: 'databases:read', query: [], success: 200 },
  listDestinations: { method: 'GET', path: '/destinations', scope: 'destinations:read', query: PAGE, success: 200 },
  getDestination: { method: 'GET', path: '/destinations/:destinationId', scope: 'destinations:read', query: [], success: 200 },
  listDatabaseBackups: { method: 'GET', path: '/databases/:databaseId/backups', scope: 'databases:read', query: PAGE, success: 200 },
  triggerBackup: { method: 'POST', path: '/databases/:databaseId/backups', scope: 'backups:trigger', query: [], success: 202 },
  getBackup: { method: 'GET', path: '/backups/:backupJobId', scope: 'databases:read', query: [], success: 200 },
  listEvidence: { method: 'GET', path: '/evidence', scope: 'evidence:read', query: ['databaseId', ...PAGE], success: 200 },
  getEvidence: { method: 'GET', path: '/evidence/:backupJobId', scope: 'evidence:read', query: [], success: 200 },
  createRestore: { method: 'POST', path: '/restores', scope: 'restores:write', query: [], success: 202 },
  getRestore: { method: 'GET', path: '/restores/:restoreJobId', scope: 'restores:read', query: [], success: 200 },
  getRecoverySummary: { method: 'GET', path: '/databases/:databaseId/recovery/summary', scope: 'databases:read', query: [], success: 200 },
  getRecoveryCandidate: {
    method: 'GET',
    path: '/databases/:databaseId/recovery/candidate',
    scope: 'databases:read',
    query: ['incidentTime'],
    success: 200,
  },
  getRecoveryWindowProof: { method: 'GET', path: '/recovery/windows/:windowId/proof', scope: 'databases:read', query: [], success: 200 },
  getMcpToolCatalog: { method: 'GET', path: '/mcp/tools', scope: null, query: [], success: 200 },
} as const satisfies Record<string, OperationRoute>;

/** The methods of the API's operations, once each (`svc api -X`). */
export const OPERATION_METHODS: readonly string[] = [...new Set(Object.values(OPERATION_ROUTES).map((r) => r.method))];

/** The paths of the operations without a path parameter, once each: what `svc api` can be given as they stand. */
export const PATHS_WITHOUT_PARAMETERS: readonly string[] = [
  ...new Set(
    Object.values(OPERATION_ROUTES)
      .map((r) => r.path)
      .filter((p) => !p.includes(':')),
  ),
];

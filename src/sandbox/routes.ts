import type * as z from '../zod.js';
import type * as operations from '../api/operations.js';
import { backupJobDetail, listDatabaseBackupsResponse, triggerBackupResponse } from '../api/schemas/backups.js';
import { getDatabaseResponse, listDatabasesResponse } from '../api/schemas/databases.js';
import { getDestinationResponse, listDestinationsResponse } from '../api/schemas/destinations.js';
import { getEvidenceResponse, listEvidenceResponse } from '../api/schemas/evidence.js';
import { getProfileResponse } from '../api/schemas/profile.js';
import { recoveryCandidateResponse, recoverySummaryResponse, recoveryWindowProofResponse } from '../api/schemas/recovery.js';
import { createRestoreResponse, getRestoreResponse } from '../api/schemas/restores.js';
import { toolCatalogResponse } from '../api/schemas/tools.js';

/** Every operation the client knows; adding one to operations.ts breaks the build here until the sandbox serves it. */
export type OperationName = keyof typeof operations;

export interface RouteDef {
  method: 'GET' | 'POST';
  /** Below /api/v1; `:name` segments are path parameters. */
  path: string;
  /** api-v1.md section 4; null = a valid key without scopes is enough. */
  scope: string | null;
  /** The only query parameters the operation accepts; anything else is a 400. */
  query: readonly string[];
  success: 200 | 202;
  /** The client's own response schema: the sandbox checks every body it sends against it. */
  response: z.ZodMiniType;
}

const page = ['limit', 'cursor'] as const;

/**
 * The route table of api-v1.md section 4, written from the API document rather than derived from the
 * client's operations, so the "every operation answers" test compares two independent descriptions.
 */
export const ROUTES = {
  getProfile: { method: 'GET', path: '/profile', scope: null, query: [], success: 200, response: getProfileResponse },
  listDatabases: { method: 'GET', path: '/databases', scope: 'databases:read', query: page, success: 200, response: listDatabasesResponse },
  getDatabase: { method: 'GET', path: '/databases/:databaseId', scope: 'databases:read', query: [], success: 200, response: getDatabaseResponse },
  listDestinations: {
    method: 'GET',
    path: '/destinations',
    scope: 'destinations:read',
    query: page,
    success: 200,
    response: listDestinationsResponse,
  },
  getDestination: {
    method: 'GET',
    path: '/destinations/:destinationId',
    scope: 'destinations:read',
    query: [],
    success: 200,
    response: getDestinationResponse,
  },
  listDatabaseBackups: {
    method: 'GET',
    path: '/databases/:databaseId/backups',
    scope: 'databases:read',
    query: page,
    success: 200,
    response: listDatabaseBackupsResponse,
  },
  triggerBackup: {
    method: 'POST',
    path: '/databases/:databaseId/backups',
    scope: 'backups:trigger',
    query: [],
    success: 202,
    response: triggerBackupResponse,
  },
  getBackup: { method: 'GET', path: '/backups/:backupJobId', scope: 'databases:read', query: [], success: 200, response: backupJobDetail },
  listEvidence: {
    method: 'GET',
    path: '/evidence',
    scope: 'evidence:read',
    query: ['databaseId', ...page],
    success: 200,
    response: listEvidenceResponse,
  },
  getEvidence: { method: 'GET', path: '/evidence/:backupJobId', scope: 'evidence:read', query: [], success: 200, response: getEvidenceResponse },
  createRestore: { method: 'POST', path: '/restores', scope: 'restores:write', query: [], success: 202, response: createRestoreResponse },
  getRestore: { method: 'GET', path: '/restores/:restoreJobId', scope: 'restores:read', query: [], success: 200, response: getRestoreResponse },
  getRecoverySummary: {
    method: 'GET',
    path: '/databases/:databaseId/recovery/summary',
    scope: 'databases:read',
    query: [],
    success: 200,
    response: recoverySummaryResponse,
  },
  getRecoveryCandidate: {
    method: 'GET',
    path: '/databases/:databaseId/recovery/candidate',
    scope: 'databases:read',
    query: ['incidentTime'],
    success: 200,
    response: recoveryCandidateResponse,
  },
  getRecoveryWindowProof: {
    method: 'GET',
    path: '/recovery/windows/:windowId/proof',
    scope: 'databases:read',
    query: [],
    success: 200,
    response: recoveryWindowProofResponse,
  },
  getMcpToolCatalog: { method: 'GET', path: '/mcp/tools', scope: null, query: [], success: 200, response: toolCatalogResponse },
} as const satisfies Record<OperationName, RouteDef>;

export interface RouteMatch {
  name: OperationName;
  route: RouteDef;
  params: Record<string, string>;
}

const compiled = (Object.entries(ROUTES) as [OperationName, RouteDef][]).map(([name, route]) => ({
  name,
  route,
  segments: route.path.split('/').slice(1),
}));

/** Matches a path below /api/v1. `methods` lists what the path allows when only the method is wrong. */
export function matchRoute(method: string, path: string): { match?: RouteMatch; methods: string[] } {
  const parts = path.split('/').slice(1);
  const methods: string[] = [];
  for (const c of compiled) {
    if (c.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const seg = c.segments[i]!;
      const part = parts[i]!;
      if (seg.startsWith(':')) {
        let value: string;
        try {
          value = decodeURIComponent(part);
        } catch {
          value = '';
        }
        if (!value) ok = false;
        else params[seg.slice(1)] = value;
      } else if (seg !== part) ok = false;
    }
    if (!ok) continue;
    if (c.route.method === method) return { match: { name: c.name, route: c.route, params }, methods };
    methods.push(c.route.method);
  }
  return { methods };
}

import type { Operation } from './client.js';
import { listDatabaseBackupsResponse, backupJobDetail, triggerBackupResponse, triggerBackupRequest } from './schemas/backups.js';
import { getDatabaseResponse, listDatabasesResponse } from './schemas/databases.js';
import { getDestinationResponse, listDestinationsResponse } from './schemas/destinations.js';
import { getEvidenceResponse, listEvidenceResponse } from './schemas/evidence.js';
import { getProfileResponse } from './schemas/profile.js';
import { recoveryCandidateResponse, recoverySummaryResponse, recoveryWindowProofResponse } from './schemas/recovery.js';
import { createRestoreRequest, createRestoreResponse, getRestoreResponse, type CreateRestoreRequest } from './schemas/restores.js';
import { toolCatalogResponse } from './schemas/tools.js';

/** One function per operation of api-v1.md section 4: method, path, request and response schema. */

export interface PageParams {
  limit?: number;
  cursor?: string;
}

const seg = encodeURIComponent;

export const getProfile = () =>
  ({ name: 'getProfile', method: 'GET', path: '/profile', response: getProfileResponse }) satisfies Operation;

export const listDatabases = (page: PageParams) =>
  ({ name: 'listDatabases', method: 'GET', path: '/databases', query: { ...page }, response: listDatabasesResponse }) satisfies Operation;

export const getDatabase = (databaseId: string) =>
  ({ name: 'getDatabase', method: 'GET', path: `/databases/${seg(databaseId)}`, response: getDatabaseResponse }) satisfies Operation;

export const listDestinations = (page: PageParams) =>
  ({ name: 'listDestinations', method: 'GET', path: '/destinations', query: { ...page }, response: listDestinationsResponse }) satisfies Operation;

export const getDestination = (destinationId: string) =>
  ({ name: 'getDestination', method: 'GET', path: `/destinations/${seg(destinationId)}`, response: getDestinationResponse }) satisfies Operation;

export const listDatabaseBackups = (databaseId: string, page: PageParams) =>
  ({
    name: 'listDatabaseBackups',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/backups`,
    query: { ...page },
    response: listDatabaseBackupsResponse,
  }) satisfies Operation;

export const triggerBackup = (databaseId: string, idempotencyKey: string) =>
  ({
    name: 'triggerBackup',
    method: 'POST',
    path: `/databases/${seg(databaseId)}/backups`,
    body: triggerBackupRequest.parse({ trigger: 'adhoc' }),
    idempotencyKey,
    response: triggerBackupResponse,
  }) satisfies Operation;

export const getBackup = (backupJobId: string) =>
  ({ name: 'getBackup', method: 'GET', path: `/backups/${seg(backupJobId)}`, response: backupJobDetail }) satisfies Operation;

export const listEvidence = (params: PageParams & { databaseId?: string }) =>
  ({ name: 'listEvidence', method: 'GET', path: '/evidence', query: { ...params }, response: listEvidenceResponse }) satisfies Operation;

export const getEvidence = (backupJobId: string) =>
  ({ name: 'getEvidence', method: 'GET', path: `/evidence/${seg(backupJobId)}`, response: getEvidenceResponse }) satisfies Operation;

export const createRestore = (body: CreateRestoreRequest, idempotencyKey: string) =>
  ({
    name: 'createRestore',
    method: 'POST',
    path: '/restores',
    body: createRestoreRequest.parse(body),
    idempotencyKey,
    response: createRestoreResponse,
  }) satisfies Operation;

export const getRestore = (restoreJobId: string) =>
  ({ name: 'getRestore', method: 'GET', path: `/restores/${seg(restoreJobId)}`, response: getRestoreResponse }) satisfies Operation;

export const getRecoverySummary = (databaseId: string) =>
  ({
    name: 'getRecoverySummary',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/recovery/summary`,
    response: recoverySummaryResponse,
  }) satisfies Operation;

export const getRecoveryCandidate = (databaseId: string, incidentTime: string) =>
  ({
    name: 'getRecoveryCandidate',
    method: 'GET',
    path: `/databases/${seg(databaseId)}/recovery/candidate`,
    query: { incidentTime },
    response: recoveryCandidateResponse,
  }) satisfies Operation;

export const getRecoveryWindowProof = (windowId: string) =>
  ({
    name: 'getRecoveryWindowProof',
    method: 'GET',
    path: `/recovery/windows/${seg(windowId)}/proof`,
    response: recoveryWindowProofResponse,
  }) satisfies Operation;

export const getMcpToolCatalog = () =>
  ({ name: 'getMcpToolCatalog', method: 'GET', path: '/mcp/tools', response: toolCatalogResponse }) satisfies Operation;

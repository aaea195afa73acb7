import type { ApiClient, Operation } from '../api/client.js';
import { getBackup, listDatabaseBackups } from '../api/operations/backups.js';
import { getDatabase, listDatabases } from '../api/operations/databases.js';
import { getDestination, listDestinations } from '../api/operations/destinations.js';
import { getEvidence, listEvidence } from '../api/operations/evidence.js';
import { getProfile } from '../api/operations/profile.js';
import { getRecoveryCandidate, getRecoveryWindowProof, getRecoverySummary } from '../api/operations/recovery.js';
import { getRestore } from '../api/operations/restores.js';
import { backupJobDetail, listDatabaseBackupsResponse } from '../api/schemas/backups.js';
import { getDatabaseResponse, listDatabasesResponse } from '../api/schemas/databases.js';
import { getDestinationResponse, listDestinationsResponse } from '../api/schemas/destinations.js';
import { getEvidenceResponse, listEvidenceResponse } from '../api/schemas/evidence.js';
import { getProfileResponse } from '../api/schemas/profile.js';
import { recoveryCandidateResponse, recoverySummaryResponse, recoveryWindowProofResponse } from '../api/schemas/recovery.js';
import { getRestoreResponse } from '../api/schemas/restores.js';
import type { Session } from '../session.js';
import type * as z from '../zod.js';
import { agentToolsOutput, listAgentTools } from './agent-tools.js';
import type { Gate } from './gate.js';
import { inputs } from './inputs.js';
import { planRestore, planRestoreOutput } from './plan-restore.js';
import { triggerBackupOutput, triggerBackupTool } from './trigger.js';
import { PROOF_CAVEAT } from './wording.js';

/** What a tool's call gets: the session (its API client, reporter, scrubber) and the human gate. */
export interface ToolContext {
  session: Session;
  api: ApiClient;
  gate: Gate;
  signal: AbortSignal;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The API scope its route needs (api-v1.md 4), or null: registered only where the token holds it. */
  scope: string | null;
  /** Changes something at the service: never registered under --read-only. */
  write: boolean;
  /** The catalog tool this is the face of: registered only where the live catalog has it live (rule 2). */
  catalogTool?: string;
  input: z.ZodMiniObject;
  output: z.ZodMiniObject;
  idempotent: boolean;
  call(args: any, ctx: ToolContext): Promise<Record<string, unknown>>;
}

/** A read tool is one API operation: its validated response is the result. */
function read<A>(op: (args: A) => Operation<z.ZodMiniObject>): ToolSpec['call'] {
  return async (args: A, { api }) => (await api.send(op(args))).data as Record<string, unknown>;
}

const proof = (text: string) => `${text} ${PROOF_CAVEAT}`;

/** The tools of cli-contract 10, in the order tools/list shows them. */
export const TOOLS: ToolSpec[] = [
  {
    name: 'get_profile',
    title: 'Token profile',
    description: "The API token's profile: organization, client kind, autonomy level, scopes and expiry (never the token).",
    scope: null,
    write: false,
    input: inputs.none,
    output: getProfileResponse,
    idempotent: true,
    call: read(() => getProfile()),
  },
  {
    name: 'list_databases',
    title: 'Protected databases',
    description:
      'List the protected databases of the organization (state, provider, region, retention, last completed backup). Pages of at most 100; pass nextCursor as cursor for more.',
    scope: 'databases:read',
    write: false,
    input: inputs.page,
    output: listDatabasesResponse,
    idempotent: true,
    call: read((a: { limit?: number; cursor?: string }) => listDatabases(a)),
  },
  {
    name: 'get_database',
    title: 'Protected database',
    description: 'One protected database: schedule, restore-drill schedule, retention, state and last completed backup.',
    scope: 'databases:read',
    write: false,
    input: inputs.databaseId,
    output: getDatabaseResponse,
    idempotent: true,
    call: read((a: { databaseId: string }) => getDatabase(a.databaseId)),
  },
  {
    name: 'list_destinations',
    title: 'Backup destinations',
    description: 'List backup destinations (object storage; never credentials). Pages of at most 100.',
    scope: 'destinations:read',
    write: false,
    input: inputs.page,
    output: listDestinationsResponse,
    idempotent: true,
    call: read((a: { limit?: number; cursor?: string }) => listDestinations(a)),
  },
  {
    name: 'get_destination',
    title: 'Backup destination',
    description: 'One backup destination: kind, region, retention floor, verification state (never credentials).',
    scope: 'destinations:read',
    write: false,
    input: inputs.destinationId,
    output: getDestinationResponse,
    idempotent: true,
    call: read((a: { destinationId: string }) => getDestination(a.destinationId)),
  },
  {
    name: 'list_backups',
    title: 'Backup jobs of a database',
    description: proof("List a database's backup jobs (state, trigger, attempt, enqueued). Pages of at most 100."),
    scope: 'databases:read',
    write: false,
    input: inputs.databasePage,
    output: listDatabaseBackupsResponse,
    idempotent: true,
    call: read((a: { databaseId: string; limit?: number; cursor?: string }) => listDatabaseBackups(a.databaseId, { limit: a.limit, cursor: a.cursor })),
  },
  {
    name: 'get_backup',
    title: 'Backup job',
    description: proof('One backup job: state, times, error, and its artifact (size, SHA-256).'),
    scope: 'databases:read',
    write: false,
    input: inputs.backupJobId,
    output: backupJobDetail,
    idempotent: true,
    call: read((a: { backupJobId: string }) => getBackup(a.backupJobId)),
  },
  {
    name: 'list_evidence',
    title: 'Backup evidence',
    description: proof(
      "List evidence recorded about backups (artifact, integrity verification, audit events), with the service's proofSemantics. Pages of at most 100.",
    ),
    scope: 'evidence:read',
    write: false,
    input: inputs.evidencePage,
    output: listEvidenceResponse,
    idempotent: true,
    call: read((a: { databaseId?: string; limit?: number; cursor?: string }) => listEvidence(a)),
  },
  {
    name: 'get_evidence',
    title: 'Evidence of a backup',
    description: proof("The evidence of one backup job, with the service's proofSemantics."),
    scope: 'evidence:read',
    write: false,
    input: inputs.backupJobId,
    output: getEvidenceResponse,
    idempotent: true,
    call: read((a: { backupJobId: string }) => getEvidence(a.backupJobId)),
  },
  {
    name: 'get_restore',
    title: 'Restore job',
    description: proof('One restore job: state, mode, times, and its proof flags (completedBackup, verifiedRestore, provenRecoverability).'),
    scope: 'restores:read',
    write: false,
    input: inputs.restoreJobId,
    output: getRestoreResponse,
    idempotent: true,
    call: read((a: { restoreJobId: string }) => getRestore(a.restoreJobId)),
  },
  {
    name: 'get_recovery_summary',
    title: 'Recovery summary',
    description: proof(
      "A database's latest recovery window decision: proof and custody status, whether a restore is available, and the service's recommended action.",
    ),
    scope: 'databases:read',
    write: false,
    input: inputs.databaseId,
    output: recoverySummaryResponse,
    idempotent: true,
    call: read((a: { databaseId: string }) => getRecoverySummary(a.databaseId)),
  },
  {
    name: 'get_recovery_candidate',
    title: 'Recovery candidate for an incident time',
    description: proof('The closest restore-ready snapshot before an incident time (a backup, not a moment of your choosing), or none.'),
    scope: 'databases:read',
    write: false,
    input: inputs.candidate,
    output: recoveryCandidateResponse,
    idempotent: true,
    call: read((a: { databaseId: string; incidentTime: string }) => getRecoveryCandidate(a.databaseId, a.incidentTime)),
  },
  {
    name: 'get_recovery_window_proof',
    title: 'Recovery window proof',
    description: proof("A recovery window's proof: its baseline backup (retained, checksum), the cursor chain and the schema digest."),
    scope: 'databases:read',
    write: false,
    input: inputs.windowId,
    output: recoveryWindowProofResponse,
    idempotent: true,
    call: read((a: { windowId: string }) => getRecoveryWindowProof(a.windowId)),
  },
  {
    name: 'list_agent_tools',
    title: "The service's agent tool catalog",
    description:
      "The service's live tool catalog (GET /mcp/tools), each tool marked live (invoked through its REST route), no live route, or advisory (neither is ever invoked, api-v1.md 4.3), with its human gate.",
    scope: null,
    write: false,
    input: inputs.none,
    output: agentToolsOutput,
    idempotent: true,
    call: async (_args, ctx) => listAgentTools(ctx),
  },
  {
    name: 'trigger_backup',
    title: 'Start an ad-hoc backup',
    description: proof(
      "Start an ad-hoc backup job of a database (the catalog's svc.backup.trigger). Returns the idempotency key: call again with it to retry without starting a second backup. Where the catalog puts a human gate on it, a person confirms first.",
    ),
    scope: 'backups:trigger',
    write: true,
    catalogTool: 'svc.backup.trigger',
    input: inputs.trigger,
    output: triggerBackupOutput,
    idempotent: false,
    call: triggerBackupTool,
  },
  {
    name: 'plan_restore',
    title: 'Plan a restore (dry run)',
    description: proof(
      "The service-checked dry run of a restore: chooses the backup (backupJobId; databaseId with latest or before; or windowId), checks the token may restore, the backup is completed with an artifact, pg_restore is here and the work dir has room, and returns the plan with the exact `svc restore create` commands for a person to run, the --dry-run first. It never connects to a database (the person's dry run checks the target) and restores nothing: no tool here restores or drills.",
    ),
    scope: 'databases:read',
    write: false,
    input: inputs.plan,
    output: planRestoreOutput,
    idempotent: true,
    call: planRestore,
  },
];

export const TOOL_NAMES = TOOLS.map((t) => t.name);

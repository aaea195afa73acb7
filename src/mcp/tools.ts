import type { ApiClient, Operation } from '../api/client.js';
import { OPERATION_TABLE, type OperationName } from '../api/operation-table.js';
import { getBackup, listDatabaseBackups } from '../api/operations/backups.js';
import { getDatabase, listDatabases } from '../api/operations/databases.js';
import { getDestination, listDestinations } from '../api/operations/destinations.js';
import { getEvidence, listEvidence } from '../api/operations/evidence.js';
import { getProfile } from '../api/operations/profile.js';
import { getRecoveryCandidate, getRecoveryWindowProof, getRecoverySummary } from '../api/operations/recovery.js';
import { getRestore } from '../api/operations/restores.js';
import { TOOL_NAMES, type ToolName } from '../core/mcp-tool-names.js';
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
  /** The operation whose scope the tool needs: the one it calls, or for plan_restore the reads of its selection. */
  operation: OperationName;
  /** That operation's scope (the operation table's), or null: registered only where the token holds it. */
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

type Spec = Omit<ToolSpec, 'name'>;
type Described = Pick<ToolSpec, 'title' | 'description' | 'input'>;

/** A tool over operation `operation`: its scope is the operation table's. */
function tool(operation: OperationName, spec: Omit<Spec, 'operation' | 'scope'>): Spec {
  return { ...spec, operation, scope: OPERATION_TABLE[operation].scope };
}

/** A read tool is one API operation: its scope is the operation's, its validated response the result. */
function read<A>(operation: OperationName, spec: Described, op: (args: A) => Operation): Spec {
  return tool(operation, {
    ...spec,
    write: false,
    output: OPERATION_TABLE[operation].response as z.ZodMiniObject,
    idempotent: true,
    call: async (args: A, { api }) => (await api.send(op(args))).data as Record<string, unknown>,
  });
}

const proof = (text: string) => `${text} ${PROOF_CAVEAT}`;

/** One spec per tool of cli-contract 10. */
const SPECS: Record<ToolName, Spec> = {
  get_profile: read(
    'getProfile',
    {
      title: 'Token profile',
      description: "The API token's profile: organization, client kind, autonomy level, scopes and expiry (never the token).",
      input: inputs.none,
    },
    () => getProfile(),
  ),
  list_databases: read(
    'listDatabases',
    {
      title: 'Protected databases',
      description:
        'List the protected databases of the organization (state, provider, region, retention, last completed backup). Pages of at most 100; pass nextCursor as cursor for more.',
      input: inputs.page,
    },
    (a: { limit?: number; cursor?: string }) => listDatabases(a),
  ),
  get_database: read(
    'getDatabase',
    {
      title: 'Protected database',
      description: 'One protected database: schedule, restore-drill schedule, retention, state and last completed backup.',
      input: inputs.databaseId,
    },
    (a: { databaseId: string }) => getDatabase(a.databaseId),
  ),
  list_destinations: read(
    'listDestinations',
    {
      title: 'Backup destinations',
      description: 'List backup destinations (object storage; never credentials). Pages of at most 100.',
      input: inputs.page,
    },
    (a: { limit?: number; cursor?: string }) => listDestinations(a),
  ),
  get_destination: read(
    'getDestination',
    {
      title: 'Backup destination',
      description: 'One backup destination: kind, region, retention floor, verification state (never credentials).',
      input: inputs.destinationId,
    },
    (a: { destinationId: string }) => getDestination(a.destinationId),
  ),
  list_backups: read(
    'listDatabaseBackups',
    {
      title: 'Backup jobs of a database',
      description: proof("List a database's backup jobs (state, trigger, attempt, enqueued). Pages of at most 100."),
      input: inputs.databasePage,
    },
    (a: { databaseId: string; limit?: number; cursor?: string }) => listDatabaseBackups(a.databaseId, { limit: a.limit, cursor: a.cursor }),
  ),
  get_backup: read(
    'getBackup',
    {
      title: 'Backup job',
      description: proof('One backup job: state, times, error, and its artifact (size, SHA-256).'),
      input: inputs.backupJobId,
    },
    (a: { backupJobId: string }) => getBackup(a.backupJobId),
  ),
  list_evidence: read(
    'listEvidence',
    {
      title: 'Backup evidence',
      description: proof(
        "List evidence recorded about backups (artifact, integrity verification, audit events), with the service's proofSemantics. Pages of at most 100.",
      ),
      input: inputs.evidencePage,
    },
    (a: { databaseId?: string; limit?: number; cursor?: string }) => listEvidence(a),
  ),
  get_evidence: read(
    'getEvidence',
    {
      title: 'Evidence of a backup',
      description: proof("The evidence of one backup job, with the service's proofSemantics."),
      input: inputs.backupJobId,
    },
    (a: { backupJobId: string }) => getEvidence(a.backupJobId),
  ),
  get_restore: read(
    'getRestore',
    {
      title: 'Restore job',
      description: proof('One restore job: state, mode, times, and its proof flags (completedBackup, verifiedRestore, provenRecoverability).'),
      input: inputs.restoreJobId,
    },
    (a: { restoreJobId: string }) => getRestore(a.restoreJobId),
  ),
  get_recovery_summary: read(
    'getRecoverySummary',
    {
      title: 'Recovery summary',
      description: proof(
        "A database's latest recovery window decision: proof and custody status, whether a restore is available, and the service's recommended action.",
      ),
      input: inputs.databaseId,
    },
    (a: { databaseId: string }) => getRecoverySummary(a.databaseId),
  ),
  get_recovery_candidate: read(
    'getRecoveryCandidate',
    {
      title: 'Recovery candidate for an incident time',
      description: proof('The closest restore-ready snapshot before an incident time (a backup, not a moment of your choosing), or none.'),
      input: inputs.candidate,
    },
    (a: { databaseId: string; incidentTime: string }) => getRecoveryCandidate(a.databaseId, a.incidentTime),
  ),
  get_recovery_window_proof: read(
    'getRecoveryWindowProof',
    {
      title: 'Recovery window proof',
      description: proof("A recovery window's proof: its baseline backup (retained, checksum), the cursor chain and the schema digest."),
      input: inputs.windowId,
    },
    (a: { windowId: string }) => getRecoveryWindowProof(a.windowId),
  ),
  list_agent_tools: tool('getMcpToolCatalog', {
    title: "The service's agent tool catalog",
    description:
      "The service's live tool catalog (GET /mcp/tools), each tool marked live (invoked through its REST route), no live route, or advisory (neither is ever invoked, api-v1.md 4.3), with its human gate.",
    write: false,
    input: inputs.none,
    output: agentToolsOutput,
    idempotent: true,
    call: async (_args, ctx) => listAgentTools(ctx),
  }),
  trigger_backup: tool('triggerBackup', {
    title: 'Start an ad-hoc backup',
    description: proof(
      "Start an ad-hoc backup job of a database (the catalog's svc.backup.trigger). Returns the idempotency key: call again with it to retry without starting a second backup. Where the catalog puts a human gate on it, a person confirms first.",
    ),
    write: true,
    catalogTool: 'svc.backup.trigger',
    input: inputs.trigger,
    output: triggerBackupOutput,
    idempotent: false,
    call: triggerBackupTool,
  }),
  // The plan reads the backup (getBackup and the selection's other reads, all databases:read); the profile needs no scope.
  plan_restore: tool('getBackup', {
    title: 'Plan a restore (dry run)',
    description: proof(
      "The service-checked dry run of a restore: chooses the backup (backupJobId; databaseId with latest or before; or windowId), checks the token may restore, the backup is completed with an artifact, pg_restore is here and the work dir has room, and returns the plan with the exact `svc restore create` commands for a person to run, the --dry-run first. It never connects to a database (the person's dry run checks the target) and restores nothing: no tool here restores or drills.",
    ),
    write: false,
    input: inputs.plan,
    output: planRestoreOutput,
    idempotent: true,
    call: planRestore,
  }),
};

/** The tools in the order tools/list shows them. */
export const TOOLS: ToolSpec[] = TOOL_NAMES.map((name) => ({ name, ...SPECS[name] }));

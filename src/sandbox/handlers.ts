import { OPERATION_TABLE } from '../api/operation-table.js';
import { timestamp } from '../api/schemas/common.js';
import type { OperationName } from './routes.js';
import { HttpError, invalid, notFound, profileOf, type Call, type Handler } from './call.js';

const ok = (body: unknown) => ({ status: 200, body });
const accepted = (body: unknown) => ({ status: 202, body });

function ownedDatabase(c: Call) {
  const db = c.world.database(c.org, c.param('databaseId'));
  if (!db) throw notFound('Protected database');
  return db;
}

/** A redacted target identity never carries the password (api-v1.md 4.1, createRestore). */
function checkRedactedDsn(dsn: string): void {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    return;
  }
  if (url.password || url.searchParams.has('password')) {
    throw invalid('targetRedactedDsn must be redacted: send no password, only postgresql://<user>@<host>:<port>/<database>.');
  }
}

/** One handler per operation of api-v1.md section 4; the operation table (api/operation-table.ts) gave auth, scope and query names. */
export const handlers: Record<OperationName, Handler> = {
  getProfile: (c) => ok({ profile: profileOf(c.token) }),

  listDatabases: (c) => {
    const page = c.page('databases', '', c.world.databases(c.org), c.limit('databases'));
    return ok({ databases: page.items, nextCursor: page.nextCursor });
  },

  getDatabase: (c) => ok({ database: ownedDatabase(c) }),

  listDestinations: (c) => {
    const page = c.page('destinations', '', c.world.destinations(c.org), c.limit('destinations'));
    return ok({ destinations: page.items, nextCursor: page.nextCursor });
  },

  getDestination: (c) => {
    const destination = c.world.destination(c.org, c.param('destinationId'));
    if (!destination) throw notFound('Backup destination');
    return ok({ destination });
  },

  listDatabaseBackups: (c) => {
    const limit = c.limit('backupJobs');
    const db = ownedDatabase(c);
    const page = c.page('backupJobs', db.id, c.world.backupsOf(db.id), limit, 'desc');
    return ok({ backupJobs: page.items, nextCursor: page.nextCursor });
  },

  triggerBackup: (c) => {
    const body = c.body(OPERATION_TABLE.triggerBackup.request);
    return c.once(body, () => {
      const db = ownedDatabase(c);
      if (db.state === 'paused') {
        throw new HttpError(412, 'precondition_failed', `Protected database ${db.id} is paused; ad-hoc backups need an active database.`, {
          nextAction: 'Resume the database in the dashboard, then trigger the backup again.',
        });
      }
      const job = c.world.triggerBackup(db);
      return accepted({ backupJobId: job.id, state: job.state, enqueuedAt: job.enqueuedAt });
    });
  },

  getBackup: (c) => {
    const job = c.world.pollBackup(c.org, c.param('backupJobId'));
    if (!job) throw notFound('Backup job');
    return ok(job);
  },

  listEvidence: (c) => {
    const limit = c.limit('evidence');
    const databaseId = c.query.get('databaseId');
    // Non-enumerating: a database that is missing or another organization's gives a terminal empty page.
    if (databaseId !== undefined && !c.world.database(c.org, databaseId)) {
      return ok({ evidence: [], proofSemantics: c.world.proofSemantics, nextCursor: null });
    }
    const page = c.page('evidence', databaseId ?? '', c.world.evidence(c.org, databaseId), limit, 'desc');
    return ok({ evidence: page.items, proofSemantics: c.world.proofSemantics, nextCursor: page.nextCursor });
  },

  getEvidence: (c) => {
    const evidence = c.world.evidenceItem(c.org, c.param('backupJobId'));
    if (!evidence) throw notFound('Evidence');
    return ok({ evidence, proofSemantics: c.world.proofSemantics });
  },

  createRestore: (c) => {
    const body = c.body(OPERATION_TABLE.createRestore.request);
    checkRedactedDsn(body.targetRedactedDsn);
    if (body.mode === 'in_place' && body.confirmDestructive !== true) {
      throw invalid('confirmDestructive must be true for mode in_place: it overwrites the target database.');
    }
    return c.once(body, () => {
      const backup = c.world.backup(c.org, body.backupJobId);
      if (!backup) throw notFound('Backup job');
      if (backup.state !== 'completed' || !backup.artifact) {
        throw new HttpError(412, 'precondition_failed', `Backup job ${backup.id} is ${backup.state}, not completed.`, {
          nextAction: `Pick a completed backup: svc backups list ${backup.protectedDatabaseId}.`,
        });
      }
      return accepted(c.world.createRestore({ ...backup, artifact: backup.artifact }, body.mode, (key) => c.presign(key)));
    });
  },

  getRestore: (c) => {
    const restoreJob = c.world.restore(c.org, c.param('restoreJobId'));
    if (!restoreJob) throw notFound('Restore job');
    return ok({ restoreJob });
  },

  getRecoverySummary: (c) => ok(c.world.recoverySummary(ownedDatabase(c).id)),

  getRecoveryCandidate: (c) => {
    const raw = c.query.get('incidentTime');
    const incidentTime = timestamp.safeParse(raw);
    if (raw === undefined || !incidentTime.success) {
      throw invalid('incidentTime is required and must be an ISO 8601 date-time with a time zone, e.g. 2026-11-20T14:30:00Z.');
    }
    return ok(c.world.recoveryCandidate(ownedDatabase(c).id, incidentTime.data));
  },

  getRecoveryWindowProof: (c) => {
    const proof = c.world.recoveryWindow(c.org, c.param('windowId'));
    if (!proof) throw notFound('Recovery window');
    return ok(proof);
  },

  getMcpToolCatalog: (c) => ok(c.world.tools),
};

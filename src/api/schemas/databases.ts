import * as z from '../../zod.js';
import { id, nextCursor, responseObject, retentionDays, timestamp } from './common.js';

export const providers = ['supabase', 'neon', 'rds', 'aurora'] as const;
export const dataResidencies = ['us', 'eu', 'apac'] as const;
export const protectedDatabaseStates = ['active', 'degraded', 'paused', 'connection_drifted'] as const;

export const protectedDatabaseSummary = responseObject({
  id,
  organizationId: id,
  name: id,
  provider: z.enum(providers),
  scheduleCron: z.optional(z.string()),
  scheduleTimezone: z.string().check(z.minLength(1)),
  restoreDrillCron: z.optional(z.string()),
  restoreDrillTimezone: z.string().check(z.minLength(1)),
  retentionPolicyDays: retentionDays,
  dataResidency: z.enum(dataResidencies),
  state: z.enum(protectedDatabaseStates),
  lastSuccessfulBackupAt: z.optional(timestamp),
  createdAt: timestamp,
});
export type ProtectedDatabaseSummary = z.infer<typeof protectedDatabaseSummary>;

export const listDatabasesResponse = responseObject({
  databases: z.array(protectedDatabaseSummary),
  nextCursor,
});
export const getDatabaseResponse = responseObject({ database: protectedDatabaseSummary });

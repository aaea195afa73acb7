import * as z from '../zod.js';

/**
 * drill.json as a schema (cli-contract 9.15): what `svc restore drill merge` checks each shard's report
 * against, and what docs/drill.schema.json publishes (generated from this, by `npm run docs`). The
 * fields the contract names are required with their types; objects are open, so a newer svc's extra
 * fields (and the receipt's detail) pass through a merge unchanged.
 */

const timestamp = z.iso.datetime({ offset: true });
const ms = z.number().check(z.nonnegative());

export const drillCheckSchema = z.looseObject({
  name: z.string().check(z.minLength(1)),
  status: z.enum(['passed', 'failed', 'skipped']),
  detail: z.optional(z.string()),
  durationMs: ms,
});

const count = z.int().check(z.nonnegative());

export const fingerprintSchema = z.looseObject({
  tables: z.array(z.looseObject({ table: z.string().check(z.minLength(1)), rows: count, sizeBytes: count })),
  totals: z.looseObject({ tables: count, rows: count, sizeBytes: count }),
  schemaDigest: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
});

export const databaseDrillSchema = z.looseObject({
  databaseId: z.string().check(z.minLength(1)),
  name: z.nullable(z.string()),
  result: z.enum(['passed', 'failed', 'planned', 'not_run']),
  exitCode: z.int().check(z.nonnegative()),
  failure: z.optional(z.looseObject({ check: z.string(), code: z.string(), message: z.string() })),
  backupJobId: z.nullable(z.string()),
  backupCompletedAt: z.nullable(timestamp),
  backupAgeSeconds: z.nullable(z.number()),
  restoreJobId: z.nullable(z.string()),
  recoveryTimeMs: z.nullable(ms),
  phases: z.record(z.string(), ms),
  checks: z.array(drillCheckSchema),
  // cli-contract 9.9 and 7.14; optional, so reports of an svc before them still merge.
  placeholderRoles: z.optional(z.array(z.string())),
  notRestored: z.optional(z.array(z.looseObject({ type: z.string(), name: z.string(), reason: z.string() }))),
  receipt: z.nullable(z.looseObject({ svcVersion: z.string(), outcome: z.enum(['restored', 'failed']) })),
  service: z.nullable(z.looseObject({ proofStatus: z.string(), custodyStatus: z.string() })),
  // cli-contract 9.17; optional, so reports of an svc before it (and databases rows_match did not count) still read.
  fingerprint: z.optional(fingerprintSchema),
});

export const drillDocumentSchema = z.looseObject({
  drill: z.looseObject({
    startedAt: timestamp,
    finishedAt: timestamp,
    shard: z.nullable(z.string().check(z.regex(/^\d{1,4}\/\d{1,4}$/))),
    scratch: z.enum(['auto', 'dsn']),
    serverVersion: z.nullable(z.string()),
    // cli-contract 9.16; optional, so reports of an svc before it still merge. null: --scratch <dsn>.
    isolation: z.optional(z.nullable(z.enum(['os-user', 'namespace', 'none']))),
    databases: z.array(databaseDrillSchema),
    passed: z.int().check(z.nonnegative()),
    failed: z.int().check(z.nonnegative()),
    notRun: z.optional(z.int().check(z.nonnegative())),
    merge: z.optional(
      z.looseObject({
        shards: z.array(z.string()),
        missingShards: z.array(z.string()),
        missingReports: z.array(z.string()),
        duplicates: z.array(z.string()),
        span: z.nullable(z.looseObject({ from: timestamp, to: timestamp })),
      }),
    ),
  }),
});

/** The JSON Schema docs/drill.schema.json holds. */
export function drillJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(drillDocumentSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'svc restore drill: drill.json',
    description:
      'The document `svc restore drill --json` prints and `--report` writes as drill.json (cli-contract 9, step 7); the input of `svc restore drill merge`.',
  };
}

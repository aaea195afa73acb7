import { resolve } from 'node:path';
import { positiveInt, requireId } from '../../core/args.js';
import { loadOptions, type LoadFlags } from '../../core/restore/engine-options.js';
import { drillRule, type DrillSelectionFlags } from '../../core/restore/selection-options.js';
import { DEFAULT_DRIFT, parseShare } from '../../drill/drift.js';
import { parseDuration } from '../../drill/duration.js';
import type { IsolationMode } from '../../drill/isolation.js';
import { checkPushgatewayUrl } from '../../drill/pushgateway.js';
import type { DrillOptions } from '../../drill/run-drill.js';
import { parseShard } from '../../drill/shard.js';
import { UsageError } from '../../errors.js';
import { parseTarget } from '../../restore/target/target.js';
import type { Env } from '../shared/verb.js';

export interface DrillFlags extends DrillSelectionFlags, LoadFlags {
  all?: boolean;
  scratch?: string;
  pgBindir?: string;
  check?: string[];
  maxAge?: string;
  parallel?: string;
  shard?: string;
  report?: string;
  keep?: boolean;
  strict?: boolean;
  dryRun?: boolean;
  metricsFile?: string;
  pushgateway?: string;
  /** commander's --no-rows-check sets this false. */
  rowsCheck?: boolean;
  baseline?: string;
  driftMinRows?: string;
  maxShrink?: string;
  deadline?: string;
  isolation?: string;
}

export interface DrillCommandOptions extends DrillOptions {
  /** The raw --scratch DSN: a secret whenever it carries a password. */
  rawScratch?: string;
  /** --metrics-file and --pushgateway (cli-contract 9.14). */
  metricsFile?: string;
  pushgateway?: string;
}

export const MAX_PARALLEL = 8;

/** Every local check of `svc restore drill` (cli-contract 9): a bad flag is exit 2 before any request. */
export function options(ids: string[], flags: DrillFlags, env: Env): DrillCommandOptions {
  // commander hands a variadic argument over as one array.
  const given = [...new Set((ids as unknown as Array<string | string[]>).flat().map((id) => requireId(id, 'database id')))];
  if (flags.all && given.length) throw new UsageError('Give database ids or --all, not both.');
  if (!flags.all && !given.length)
    throw new UsageError(
      'Name the databases to drill, or --all for every database of the organization.',
      'For example: svc restore drill db_orders, or svc restore drill --all --shard 1/4',
    );
  if (flags.backup !== undefined && (flags.all || given.length !== 1)) throw new UsageError('--backup names one backup: drill exactly one database with it.');
  const rule = drillRule(flags);
  const rawScratch = flags.scratch === undefined || flags.scratch === 'auto' ? undefined : flags.scratch;
  const pgBindir = flags.pgBindir ?? env.SVC_PG_BINDIR;
  if (rawScratch !== undefined && flags.pgBindir !== undefined)
    throw new UsageError('--pg-bindir is for --scratch auto; a scratch DSN names a server that runs already.');
  const server = rawScratch === undefined ? undefined : parseTarget(rawScratch, env);
  if (flags.dryRun && (flags.metricsFile !== undefined || flags.pushgateway !== undefined)) {
    throw new UsageError('--metrics-file and --pushgateway record what a drill proved; a --dry-run restores nothing.');
  }
  return {
    databases: flags.all ? 'all' : given,
    rule,
    scratch: server
      ? { kind: 'dsn', server }
      : { kind: 'auto', ...(pgBindir ? { pgBindir: { dir: resolve(pgBindir), flag: flags.pgBindir ? '--pg-bindir' : 'SVC_PG_BINDIR' } } : {}) },
    rawScratch,
    checkFiles: (flags.check ?? []).map((f) => resolve(requireId(f, '--check'))),
    maxAgeSeconds: flags.maxAge === undefined ? undefined : parseDuration(flags.maxAge, '--max-age'),
    parallel: flags.parallel === undefined ? 1 : positiveInt(flags.parallel, '--parallel', MAX_PARALLEL),
    shard: flags.shard === undefined ? undefined : parseShard(flags.shard),
    reportDir: flags.report === undefined ? undefined : resolve(requireId(flags.report, '--report')),
    keep: flags.keep === true,
    strict: flags.strict === true,
    dryRun: flags.dryRun === true,
    ...loadOptions(flags),
    metricsFile: flags.metricsFile === undefined ? undefined : resolve(requireId(flags.metricsFile, '--metrics-file')),
    pushgateway: flags.pushgateway === undefined ? undefined : checkPushgatewayUrl(flags.pushgateway),
    rowsCheck: flags.rowsCheck !== false,
    ...driftOptions(flags),
    isolation: isolationMode(flags.isolation),
    deadlineSeconds: flags.deadline === undefined ? undefined : parseDuration(flags.deadline, '--deadline'),
  };
}

/** --baseline and no_drift's limits (cli-contract 9.17); the baseline itself is read before any createRestore. */
function driftOptions(flags: DrillFlags): Pick<DrillOptions, 'baseline' | 'drift'> {
  if (flags.baseline === undefined && (flags.driftMinRows !== undefined || flags.maxShrink !== undefined)) {
    throw new UsageError('--drift-min-rows and --max-shrink set the limits of no_drift, which compares with a --baseline: give one.');
  }
  if (flags.baseline !== undefined && flags.rowsCheck === false)
    throw new UsageError('--baseline compares the rows rows_match counts: it cannot be used with --no-rows-check.');
  return {
    baseline: flags.baseline === undefined ? undefined : resolve(requireId(flags.baseline, '--baseline')),
    drift: {
      minRows: flags.driftMinRows === undefined ? DEFAULT_DRIFT.minRows : positiveInt(flags.driftMinRows, '--drift-min-rows', 1e12),
      maxShrink: flags.maxShrink === undefined ? DEFAULT_DRIFT.maxShrink : parseShare(flags.maxShrink, '--max-shrink'),
    },
  };
}

function isolationMode(given: string | undefined): IsolationMode {
  if (given === undefined || given === 'auto' || given === 'required') return given ?? 'auto';
  throw new UsageError(
    `--isolation ${given}: give auto or required.`,
    "required refuses to run the scratch cluster where it could see svc's processes and files (exit 11).",
  );
}

import { readBounded, API_BODY_LIMIT } from '../api/body.js';
import { statusVerdict, withRetries, type RetryPolicy } from '../api/retry.js';
import { loadTransport, networkErrorCode } from '../api/undici.js';
import { CliError } from '../errors.js';
import type { DrillDocument } from './document.js';
import { drillMetrics, LAST_SUCCESS } from './metrics.js';
import type { Shard } from './shard.js';

type Env = Record<string, string | undefined>;
type Labels = Record<string, string>;

export interface PushDeps extends Omit<RetryPolicy, 'onRetry'> {
  env: Env;
  timeoutMs: number;
  onRetry?: (message: string) => void;
  /** --verbose: one line per exchange. */
  log?: (line: string) => void;
}

const JOB = 'svc_restore_drill';

/** The grouping key of a run (cli-contract 9.14): one group per shard, so shards never replace each other's metrics. */
export function groupKey(shard: Shard | undefined): string {
  return shard ? `${shard.index}_of_${shard.count}` : 'all';
}

function endpoint(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = '';
  return url.toString();
}

/** A --pushgateway URL: http or https, no credentials in it (they would be printed with it). */
export function checkPushgatewayUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError('usage', `--pushgateway ${raw} is not a URL.`, { hint: 'For example: --pushgateway http://pushgateway.monitoring:9091' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('usage', `--pushgateway takes an http:// or https:// URL, not ${url.protocol}`);
  if (url.username || url.password)
    throw new CliError('usage', '--pushgateway must not carry credentials in its URL.', {
      hint: 'Put the Pushgateway behind a proxy that authenticates, or on a private network.',
    });
  return url.toString();
}

interface GroupJson {
  labels?: Labels;
  [metric: string]: unknown;
}

/**
 * Pushes the run's metrics to the Pushgateway group of its shard with POST, which replaces only the
 * metric names sent. A database that did not pass keeps the last-success time the group already
 * holds: it is read first (GET /api/v1/metrics) and sent again, so neither a failed database nor a
 * passing neighbour in the same group erases it.
 */
export async function pushDrillMetrics(base: string, shard: Shard | undefined, doc: DrillDocument, deps: PushDeps): Promise<void> {
  const transport = await loadTransport();
  const dispatcher = transport.dispatcher(deps.env, { connections: 1, keepAliveTimeout: 1000 });
  const key = groupKey(shard);
  const exchange = async (method: 'GET' | 'POST', path: string, body?: string): Promise<string> => {
    const url = endpoint(base, path);
    return withRetries({ ...deps }, async () => {
      const started = performance.now();
      try {
        const res = await transport.request(url, {
          dispatcher,
          method,
          headers: body === undefined ? {} : { 'content-type': 'text/plain; version=0.0.4' },
          body,
          headersTimeout: deps.timeoutMs,
          bodyTimeout: deps.timeoutMs,
          signal: deps.signal,
        });
        const text = await readBounded(res.body, API_BODY_LIMIT);
        deps.log?.(`${method} ${url} ${res.statusCode} ${Math.round(performance.now() - started)}ms`);
        if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true as const, value: text };
        const verdict = statusVerdict(res.statusCode, undefined);
        const why = text.trim().split('\n')[0]?.slice(0, 200) ?? '';
        return {
          ok: false as const,
          ...verdict,
          error: new CliError(
            'metrics_push_failed',
            `The Pushgateway at ${base} answered ${method} ${path} with HTTP ${res.statusCode}${why ? `: ${why}` : ''}.`,
          ),
        };
      } catch (err) {
        if (err instanceof CliError) throw err;
        if (deps.signal?.aborted) throw err;
        return {
          ok: false as const,
          retryable: true,
          error: new CliError('metrics_push_failed', `Could not reach the Pushgateway at ${base} (${networkErrorCode(err)}).`),
        };
      }
    });
  };
  try {
    const previous = new Map<string, { labels: Labels; value: number }>();
    const groups = (JSON.parse(await exchange('GET', '/api/v1/metrics')) as { data?: GroupJson[] }).data ?? [];
    const mine = groups.find((g) => g.labels?.job === JOB && g.labels?.shard === key);
    const family = mine?.[LAST_SUCCESS] as { metrics?: Array<{ labels?: Labels; value?: string }> } | undefined;
    for (const m of family?.metrics ?? []) {
      const { job: _job, shard: _shard, instance: _instance, ...labels } = m.labels ?? {};
      const value = Number(m.value);
      if (labels.database_id !== undefined && Number.isFinite(value)) previous.set(labels.database_id, { labels, value });
    }
    await exchange('POST', `/metrics/job/${JOB}/shard/${encodeURIComponent(key)}`, drillMetrics(doc, previous));
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

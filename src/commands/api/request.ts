import type { ApiClient } from '../../api/client.js';
import { holdPages } from '../../api/paginate.js';
import { UsageError } from '../../errors.js';
import { svcCommand } from '../../output/shell-quote.js';
import type { Session } from '../../session.js';
import { idempotencyKey } from '../../core/args.js';
import { streamPages } from '../shared/paging.js';
import { pageWalk, send } from './pages.js';
import { fields, requestParts, type Field } from './request-body.js';

export type { Field };

/** The methods of the API v1 operations (api-v1.md 4): nothing else is sent. */
const METHODS = ['GET', 'POST'] as const;
type Method = (typeof METHODS)[number];

export interface ApiOptions {
  method: Method;
  /** Below /api/v1, with a leading slash and the query string as given. */
  path: string;
  fields: Field[];
  /** --input: a file name, or "-" for stdin. */
  input: string | undefined;
  paginate: boolean;
  idempotencyKey: string | undefined;
}

export interface ApiFlags {
  method?: string;
  field?: string[];
  input?: string;
  paginate?: boolean;
  idempotencyKey?: string;
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * The path as a user writes it for `gh api`: relative to /api/v1, with or without its leading slash.
 * Anything that could take the request, and its bearer token, elsewhere is refused: a URL
 * (`https://...`, `//host`), a backslash (URL parsers read it as "/"), dot segments (which climb out
 * of /api/v1) and control characters (which URL parsers drop silently).
 */
function apiPath(raw: string | undefined): string {
  const path = (raw ?? '').trim();
  if (path === '') throw new UsageError('The path is empty.', 'Give the path below /api/v1, e.g. `svc api /databases`.');
  if (/^[a-z][a-z\d+.-]*:/i.test(path) || path.startsWith('//')) {
    throw new UsageError(
      `"${path}" is a URL; svc api takes a path below /api/v1 of the configured service, so the token goes nowhere else.`,
      'Give the path alone, e.g. `svc api /databases`; --base-url, SVC_BASE_URL or --profile choose the service.',
    );
  }
  if (/[\x00-\x1f\x7f]/.test(path)) throw new UsageError('The path contains control characters.');
  if (path.includes('\\')) throw new UsageError(`The path "${path}" contains a backslash, which URL parsers read as "/".`, 'Percent-encode it as %5C.');
  if (path.includes('#')) throw new UsageError(`The path "${path}" contains "#": a fragment is never sent.`, 'Percent-encode it as %23.');
  const rooted = path.startsWith('/') ? path : `/${path}`;
  const pathname = rooted.split('?', 1)[0]!;
  if (pathname.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    throw new UsageError(`The path "${path}" has a "." or ".." segment: it would leave the operation it names.`);
  }
  if (/^\/api\/v1(?:\/|$)/.test(pathname)) {
    throw new UsageError(
      `The path "${path}" starts with /api/v1, which svc adds itself.`,
      `Write it as \`${svcCommand(['api'], {}, [rooted.slice('/api/v1'.length) || '/'])}\`.`,
    );
  }
  return rooted;
}

function method(raw: string | undefined, sendsBody: boolean, paginate: boolean): Method {
  if (raw === undefined) return sendsBody && !paginate ? 'POST' : 'GET';
  const upper = raw.toUpperCase();
  if (!(METHODS as readonly string[]).includes(upper)) {
    throw new UsageError(`-X ${raw}: the API v1 has GET and POST operations only.`);
  }
  return upper as Method;
}

export function options([path]: string[], flags: ApiFlags): ApiOptions {
  const given = fields(flags.field ?? []);
  const input = flags.input;
  if (input === '') throw new UsageError('--input needs a file name, or - for stdin.');
  if (given.length > 0 && input !== undefined) {
    throw new UsageError('-f and --input both give the request body: use one of them.', 'Put every field in the --input JSON, or give them all with -f.');
  }
  const paginate = flags.paginate === true;
  const m = method(flags.method, given.length > 0 || input !== undefined, paginate);
  if (paginate && (m !== 'GET' || input !== undefined)) {
    throw new UsageError('--paginate follows the next cursor of a GET list; it takes neither -X POST nor --input.');
  }
  if (m === 'GET' && input !== undefined) throw new UsageError('A GET sends no body (api-v1.md 4): drop --input, or use -X POST.');
  if (m === 'GET' && flags.idempotencyKey !== undefined) {
    throw new UsageError('--idempotency-key is for POST: only a POST sends an Idempotency-Key.');
  }
  return {
    method: m,
    path: apiPath(path),
    fields: given,
    input,
    paginate,
    idempotencyKey: idempotencyKey(flags.idempotencyKey),
  };
}

/** The request URL below the client's /api/v1, with a GET's -f fields added to the query string. */
function requestUrl(api: ApiClient, path: string, query: Array<[string, string]>): URL {
  const base = `${api.origin}/api/v1`;
  const url = new URL(`${base}${path}`);
  for (const [k, v] of query) url.searchParams.append(k, v);
  // options() refused whatever could leave /api/v1; this holds the line if that ever changes.
  if (!url.href.startsWith(`${base}/`)) throw new UsageError(`The path "${path}" leaves ${base}.`);
  return url;
}

/**
 * The body printed as `gh api` prints it: through --jq when given; indented on a terminal, by the
 * writer; otherwise exactly as received (a script gets the service's bytes, large integers and key
 * order intact).
 */
async function print(session: Session, document: unknown, received: string): Promise<void> {
  if (document === undefined) return;
  if (session.settings.jq !== undefined || session.ctx.stdoutIsTTY) {
    await session.out.document(document);
    return;
  }
  session.out.raw(received);
}

/** Tells how to get a list too large to hold for --jq (cli-contract 6). */
const TOO_LARGE_FOR_JQ =
  'Drop --jq: svc api --paginate then writes the merged document as the pages arrive, and jq can read it from the pipe. Or page by hand with ?cursor=... in the path.';

export async function run(opts: ApiOptions, session: Session): Promise<void> {
  const { body, query } = await requestParts(opts, session.ctx.stdin);
  const api = await session.api();
  const url = requestUrl(api, opts.path, query);
  const first = await send(api, opts.method, url.href, body, opts.idempotencyKey);
  const walk = opts.paginate ? pageWalk(api, url, first, session) : undefined;
  if (!walk) {
    await print(session, first.document, first.text);
    return;
  }
  // The merged pages: one line of JSON when piped, as scripts have read it; indented on a terminal.
  if (session.out.streamsDocuments) await streamPages(session, walk, { compact: !session.ctx.stdoutIsTTY });
  else await session.out.document(await holdPages(walk, TOO_LARGE_FOR_JQ));
}

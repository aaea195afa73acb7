import { ApiError, CliError } from '../errors.js';
import { errorHint, type HintContext } from './error-hints.js';
import { header, type Headers } from './exchange-log.js';
import { statusVerdict } from './retry.js';
import { errorBody } from './schemas/errors.js';

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The error a non-2xx answer becomes: the service's error body (api-v1.md 2.12) with svc's hint; a redirect is refused. */
export function statusError(
  method: string,
  path: string,
  status: number,
  headers: Headers,
  text: string,
  context: Pick<HintContext, 'notFound' | 'tokenSource' | 'audience'>,
): CliError {
  const parsed = errorBody().safeParse(safeJson(text));
  const err = parsed.success ? parsed.data.error : undefined;
  const requestId = err?.requestId ?? header(headers, 'x-request-id');
  if (status >= 300 && status < 400) {
    return new CliError(
      'redirect_refused',
      `The service answered ${method} ${path} with a redirect (HTTP ${status}); svc does not follow redirects, so the token never leaves the configured base URL.`,
      { status, requestId },
    );
  }
  const { retryAfterMs } = statusVerdict(status, header(headers, 'retry-after'));
  return new ApiError(status, err?.code, err?.message ?? `HTTP ${status} from ${method} ${path}.`, {
    requestId,
    requiredScope: err?.requiredScope,
    nextAction: err?.nextAction,
    ...(retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) }),
    hint: errorHint(status, method, {
      retryAfterMs,
      tokenSource: context.tokenSource,
      notFound: context.notFound,
      audience: context.audience,
    }),
  });
}

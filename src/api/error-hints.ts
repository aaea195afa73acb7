import { svcCommand, type GivenFlags, type Word } from '../output/shell-quote.js';

/** What a 404 of one operation means: the resource it named, and how to see what exists. */
export interface NotFound {
  /** "backup job bj_0042" */
  what: string;
  /** The svc commands that list what exists, each as its words after `svc`; or, where none does, where the id comes from. */
  list: Word[][] | string;
  /** The agent server's tool that lists what exists (list_databases), where one does. */
  tool?: string;
}

/** Who reads the hint: a person at svc's command line, or an agent through `svc mcp serve` (which names tools, not commands). */
export interface HintAudience {
  /** The flags the printed commands carry (cli-contract 4, v5). */
  given: GivenFlags;
  mcp?: boolean;
}

export interface HintContext {
  retryAfterMs?: number;
  /** Where the token came from (token-store.ts): a 401 while SVC_API_KEY is set is not cured by a login. */
  tokenSource?: 'env' | 'keychain' | 'file';
  notFound?: NotFound;
  audience?: HintAudience;
}

/** How to see what exists, for this audience: the listing tool for an agent, else the commands. */
function listing(notFound: NotFound, audience: HintAudience | undefined): string {
  if (audience?.mcp && notFound.tool) return `call ${notFound.tool}`;
  if (typeof notFound.list === 'string') return notFound.list;
  return notFound.list.map((words) => svcCommand(words, audience?.given)).join(', or ');
}

const NEW_TOKEN = 'New tokens are made in the dashboard under Settings, API tokens.';

/** What to do next, per status, when the service's own nextAction does not say. */
export function errorHint(status: number, method: string, context: HintContext = {}): string | undefined {
  switch (status) {
    case 400:
      return 'The service rejected the request as invalid; check the arguments (`--help` has examples).';
    case 401: {
      const login = svcCommand(['auth', 'login'], context.audience?.given);
      const who = context.audience?.mcp ? 'Ask the person to run' : 'Run';
      return context.tokenSource === 'env'
        ? `SVC_API_KEY is set and overrides any saved login: set it to a valid token, or unset it to use the one \`${login}\` stored. ${NEW_TOKEN}`
        : `${who} \`${login}\` to store a valid token, or set SVC_API_KEY. ${NEW_TOKEN}`;
    }
    case 403:
      return 'Ask an organization admin for a token with the required scope.';
    case 404:
      return context.notFound
        ? `There is no ${context.notFound.what} in this organization (another organization's looks the same). To see what exists: ${listing(context.notFound, context.audience)}`
        : 'Check the id. Resources of another organization answer exactly like missing ones.';
    case 409:
      return method === 'POST'
        ? 'Either a request with the same idempotency key is still in flight, or the key was reused with a different body. Wait and retry, or use a new --idempotency-key.'
        : undefined;
    case 412:
      return 'The operation is not safe until the precondition named above is resolved.';
    case 429:
      return context.retryAfterMs !== undefined
        ? `Rate limited: try again in ${Math.ceil(context.retryAfterMs / 1000)}s.`
        : 'Rate limited: wait a moment and try again.';
    default:
      return status >= 500 ? 'The service is unavailable or failed internally; try again later and quote the request id to support.' : undefined;
  }
}

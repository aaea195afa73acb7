import type { Command } from 'commander';
import { examples, prose, verb, type CommandHost } from '../shared/verb.js';

/** `-f` may be given again and again: commander hands each value to this with the list so far. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** `svc api`: a single-verb command, raw access to any API v1 operation (like `gh api`). */
export function registerApi(program: Command, host: CommandHost): void {
  program
    .command('api')
    .description("Call any API v1 operation with svc's login, retries and exit codes, and print the response body")
    .argument('<path>', 'path below /api/v1, with a query string if wanted: /databases, databases/db_123/backups?limit=5')
    .option('-X, --method <method>', 'GET or POST (default: GET; POST when -f or --input gives a body)')
    .option('-f, --field <key=value>', 'a field of the JSON body (repeatable); with GET, a query parameter', collect)
    .option('--input <file>', 'the request body: a file of JSON, or - for stdin')
    .option('--paginate', 'follow nextCursor (GET) and print one merged document')
    .option('--idempotency-key <key>', 'Idempotency-Key of a POST (1-200 characters; default: a new UUID, reused on retries)')
    .addHelpText(
      'after',
      prose(
        'Field values: true, false, null and numbers are sent as JSON values, "text" in double quotes as a string, @file as the text of a file (@- reads stdin); anything else as a string. With GET, the fields are query parameters.',
        'The path stays on the configured service: a full URL is refused, so the token goes nowhere else.',
        'Output: the body as received when stdout is not a terminal, indented on one, or what --jq makes of it; it is not checked against the API contract. Errors keep the exit codes of every command (404 is 5, 409 is 6, ...), with the request id on stderr.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'svc api /profile',
        'svc api databases --paginate --jq ".databases[].id"',
        "svc api 'databases/db_123/backups?limit=5'",
        'svc api -X POST databases/db_123/backups -f trigger=adhoc',
        'svc api -X GET evidence -f databaseId=db_123 -f limit=50',
        'svc api restores --input restore-request.json --idempotency-key restore-1',
        `echo '{"trigger":"adhoc"}' | svc api databases/db_123/backups --input -`,
      ),
    )
    .action(verb(host, () => import('./request.js')));
}

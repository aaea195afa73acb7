import type { Command } from 'commander';
import { DEFAULT_SANDBOX_PORT, SANDBOX_NOTICE } from '../../sandbox/notice.js';
import { examples, prose, verb, type CommandHost } from '../shared/verb.js';

/** `svc sandbox`: a single-verb command. The sandbox itself loads only when it runs. */
export function registerSandbox(program: Command, host: CommandHost): void {
  program
    .command('sandbox')
    .description('Run a local stand-in of the API v1 on 127.0.0.1 for development and CI (never the service)')
    .option('--port <n>', `port on 127.0.0.1; 0 picks a free one (default ${DEFAULT_SANDBOX_PORT})`)
    .option('--data <dir>', 'data set laid out like fixtures/ (api/, sandbox/, artifacts/)')
    .option('--tls-cert <pem>', 'serve HTTPS with this certificate (chain) file; with --tls-key')
    .option('--tls-key <pem>', 'the private key of --tls-cert')
    .addHelpText(
      'after',
      prose(
        SANDBOX_NOTICE,
        'It prints its base URL, its fixed demo tokens (full, read-only, no-scope, expired, revoked, org-b, tiny-budget, drill) and the export lines that point svc at it (SVC_BASE_URL, SVC_API_KEY), and serves until Ctrl-C, SIGTERM or SIGHUP.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'svc sandbox',
        'svc sandbox --port 0 --json > sandbox.json &',
        'svc sandbox --tls-cert server.pem --tls-key server-key.pem',
        'NODE_EXTRA_CA_CERTS=ca.pem svc --base-url https://127.0.0.1:4010 profile',
      ),
    )
    .action(verb(host, () => import('./serve.js')));
}

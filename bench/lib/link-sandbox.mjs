/**
 * The sandbox for the long-link restore row: `svc sandbox --data <dir>` (startSandbox, recent
 * timestamps, a free port), except that its presigned artifact URLs name the long-link proxy in
 * front of it (bench/lib/long-link-proxy.mjs, startSandbox's artifactOrigin option). The API itself
 * is answered directly; only the artifact crosses the long link.
 *
 * Usage: node --import tsx bench/lib/link-sandbox.mjs <data-dir>
 * Prints {"baseUrl", "port", "tokens", "artifact"} once it listens. The proxy can only be started
 * after that (it needs the port), so the artifact origin comes afterwards as a line on stdin:
 * {"artifactBaseUrl": "http://127.0.0.1:<proxy port>"}. Until then URLs name the sandbox itself.
 * Serves until stdin closes or SIGTERM.
 */
import { createInterface } from 'node:readline';
import { startSandbox } from '../../src/sandbox/index.ts';

const [dataDir] = process.argv.slice(2);
let artifactOrigin;
const sandbox = await startSandbox({ port: 0, dataDir, recentTimestamps: true, artifactOrigin: () => artifactOrigin });
process.stdout.write(
  `${JSON.stringify({
    baseUrl: sandbox.baseUrl,
    port: sandbox.port,
    tokens: sandbox.tokens.map((t) => ({ name: t.name, token: t.token })),
    artifact: sandbox.artifact,
  })}\n`,
);

const stop = () => void sandbox.stop().then(() => process.exit(0));
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (typeof msg.artifactBaseUrl === 'string') artifactOrigin = msg.artifactBaseUrl.replace(/\/+$/, '');
});
lines.on('close', stop);
process.on('SIGTERM', stop);

/**
 * Runs the restore engine's downloadArtifact (src/restore/download/download.ts) once, as svc restore does
 * before pg_restore: stream to a 0600 file in a private dir, SHA-256 and size checked in the same
 * pass. `connections` defaults to the product default (DEFAULT_CONNECTIONS, 8).
 * Usage: node --import tsx bench/lib/download-driver.mjs <url> <size> <sha256> <dir> [connections]
 * Prints {sha256, bytes, connections, cpu}: cpu is CPU seconds by thread (./thread-cpu.mjs).
 * The bench runs it bundled by esbuild (bench/lib/bundle-driver.mjs) so tsx does not weigh on the
 * figures; the sources are the same.
 */
import { downloadArtifact } from '../../src/restore/download/download.ts';
import { DEFAULT_CONNECTIONS } from '../../src/restore/plan.ts';
import { sampleThreadCpu } from './thread-cpu.mjs';

const [url, size, sha256, dir, connections] = process.argv.slice(2);
const cpu = sampleThreadCpu();
const result = await downloadArtifact({
  url,
  expectedSize: Number(size),
  expectedSha256: sha256,
  dir,
  signal: new AbortController().signal,
  connections: connections === undefined ? DEFAULT_CONNECTIONS : Number(connections),
  maxRetries: 4,
  timeoutMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
  // No proxy settings: the bench's servers (and its long-link proxy) are on loopback, and no
  // HTTP(S)_PROXY of this machine may apply.
  env: {},
});
process.stdout.write(`${JSON.stringify({ sha256: result.sha256, bytes: result.bytes, connections: result.connections, cpu: cpu.stop() })}\n`);

/**
 * Runs the restore engine's downloadArtifact (src/restore/download.ts) once, as svc restore does
 * before pg_restore: stream to a 0600 file in a private dir, SHA-256 and size checked in the same
 * pass. Usage: node --import tsx bench/lib/download-driver.mjs <url> <size> <sha256> <dir>
 */
import { downloadArtifact } from '../../src/restore/download.ts';

const [url, size, sha256, dir] = process.argv.slice(2);
const result = await downloadArtifact({
  url,
  expectedSize: Number(size),
  expectedSha256: sha256,
  dir,
  signal: new AbortController().signal,
  maxRetries: 4,
  timeoutMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
  // No proxy settings: the bench's server is on loopback.
  env: {},
});
process.stdout.write(`${result.sha256}\n`);

/**
 * Rows 3 and 4: the restore engine's downloadArtifact (src/restore/download.ts: stream to a 0600
 * file, SHA-256 and size checked in the same pass; no pg_restore), run by bench/lib/download-driver.mjs
 * in its own node process (under tsx) under GNU time for its peak RSS.
 *  - Throughput of a 1 GiB artifact against `curl -s URL | tee FILE | sha256sum` (the same server,
 *    the same disk). Interleaved rounds; medians. Each side's output file is deleted after each run.
 *  - Peak RSS at 256 MiB, 1 GiB and 2 GiB: flat means at most 120 MiB at every size and the 2 GiB
 *    figure within 10% of the 256 MiB one.
 * Artifacts are streamed to disk from a repeated 16 MiB pseudo-random block, never held in memory,
 * and served by src/sandbox/range-file.ts serveFile in bench/lib/servers.mjs.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtMiB, fmtRate, GiB, GNU_TIME, makeFile, median, MiB, NODE, peakRss, requireTools, ROOT, rounds, startServers, tempDir, timed, TSX } from './lib/common.mjs';
import { row } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

const DRIVER = join(ROOT, 'bench/lib/download-driver.mjs');
const MAX_RSS = 120 * MiB;
const MAX_GROWTH = 1.1;

export async function run({ quick, log }) {
  requireTools(['curl', 'tee', 'sha256sum']);
  if (!GNU_TIME) throw new Error('GNU time is missing (apt-get install -y time)');
  const dir = tempDir();
  const sizes = quick ? [64 * MiB, 256 * MiB, 512 * MiB] : [256 * MiB, GiB, 2 * GiB];
  const throughputSize = quick ? 256 * MiB : GiB;
  const files = {};
  for (const [i, size] of sizes.entries()) {
    log(`download: writing a ${fmtMiB(size)} artifact`);
    files[size] = { name: `artifact-${size}.bin`, sha256: await makeFile(join(dir, `artifact-${size}.bin`), size, i + 1) };
  }
  const servers = await startServers(dir, { pages: 1 });
  const url = (size) => `${servers.base}/files/${files[size].name}`;
  const outFile = join(dir, 'artifact.dump');
  const curlFile = join(dir, 'curl.out');

  const svcDownload = (size) => {
    const r = peakRss(NODE, [...TSX, DRIVER, url(size), String(size), files[size].sha256, dir]);
    rmSync(outFile, { force: true });
    return r;
  };
  const curlDownload = (size) => {
    const r = timed('sh', ['-c', 'curl -sS --fail "$1" | tee "$2" | sha256sum', 'sh', url(size), curlFile]);
    rmSync(curlFile, { force: true });
    if (!String(r.stdout).startsWith(files[size].sha256)) throw new Error('curl | sha256sum printed another digest');
    return r;
  };

  const n = quick ? 2 : 3;
  log(`download: ${n} interleaved rounds of svc downloadArtifact, curl | tee | sha256sum and curl -o, ${fmtMiB(throughputSize)}`);
  const rss = Object.fromEntries(sizes.map((s) => [s, []]));
  const t = rounds(n, {
    curl: () => curlDownload(throughputSize).ms,
    // For the record only: the transfer alone, no digest (coreutils sha256sum may be what limits the baseline).
    curlOnly: () => {
      const r = timed('curl', ['-sS', '--fail', '-o', curlFile, url(throughputSize)]);
      rmSync(curlFile, { force: true });
      return r.ms;
    },
    svc: () => {
      const r = svcDownload(throughputSize);
      rss[throughputSize].push(r.bytes);
      return r.ms;
    },
  }, { warmup: 0 });
  for (const size of sizes) {
    if (size === throughputSize) continue;
    log(`download: peak RSS at ${fmtMiB(size)}, ${n} runs`);
    for (let i = 0; i < n; i++) rss[size].push(svcDownload(size).bytes);
  }

  const svcRate = throughputSize / median(t.svc);
  const curlRate = throughputSize / median(t.curl);
  const peaks = sizes.map((s) => median(rss[s]));
  const largest = Math.max(...peaks);
  const growth = peaks[peaks.length - 1] / peaks[0];
  const label = (s) => (s >= GiB ? `${s / GiB} GiB` : `${s / MiB} MiB`);
  return [
    row({
      what: `download + verify ${label(throughputSize)} (throughput)`,
      figure: fmtRate(svcRate),
      baseline: fmtRate(curlRate),
      ratio: `${(svcRate / curlRate).toFixed(2)}x`,
      targetText: '>= 0.9x',
      pass: svcRate / curlRate >= 0.9,
      note:
        `svc ${(median(t.svc) / 1000).toFixed(2)} s vs curl | tee | sha256sum ${(median(t.curl) / 1000).toFixed(2)} s; ${n} runs each. ` +
        `For the record, curl -o FILE alone (no digest): ${fmtRate(throughputSize / median(t.curlOnly))}`,
    }),
    row({
      what: `download peak RSS at ${sizes.map(label).join(' / ')}`,
      figure: peaks.map((p) => fmtMiB(p)).join(' / '),
      baseline: fmtMiB(peaks[0]),
      ratio: `${growth.toFixed(2)}x`,
      targetText: '<= 120 MiB, flat',
      pass: largest <= MAX_RSS && growth <= MAX_GROWTH,
      note: `max RSS of the whole node process (GNU time %M), median of ${n} runs per size; flat = largest size within ${Math.round((MAX_GROWTH - 1) * 100)}% of the smallest`,
    }),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

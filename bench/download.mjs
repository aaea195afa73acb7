/**
 * Rows 3-5: the restore engine's downloadArtifact (src/restore/download/download.ts: parallel Range requests
 * into a 0600 file, SHA-256 and size checked in the same pass; no pg_restore), run by
 * bench/lib/download-driver.mjs bundled with esbuild (bench/lib/bundle-driver.mjs) in its own node
 * process. Artifacts are streamed to disk from a repeated 16 MiB pseudo-random block, never held in
 * memory, and served by src/sandbox/range-file.ts serveFile in bench/lib/servers.mjs. Each side's
 * output file is deleted after each run. Interleaved rounds; medians.
 *  - Long link: through bench/lib/long-link-proxy.mjs (25 ms each way, 50 MB/s per connection and
 *    direction), a 1 GiB artifact with svc's default 8 connections against
 *    `curl -s URL | tee FILE | sha256sum` over the same proxy (one connection: at most 50 MB/s).
 *    Target: at least 4x. svc with 4 connections is timed too, for the note.
 *  - One core: the same long link with svc held to one CPU (`taskset -c 0`), 8 connections against
 *    --connections 1 (the one-stream path, hashing as the bytes arrive): the hashing thread must
 *    not make svc slower where there is no second core to run it. Target: at least 1x.
 *  - Loopback, no proxy: the same 1 GiB against `curl -s URL | tee FILE | openssl dgst -sha256`
 *    (coreutils sha256sum does not use the CPU's SHA instructions here and caps at ~160 MB/s, so it
 *    would flatter svc; it is timed too, for the note, with `curl -o FILE`). Target: at least 0.95x.
 *  - Peak RSS (GNU time %M) with 16 connections at 256 MiB, 1 GiB and 2 GiB over loopback (the
 *    fastest arrival, so the most to buffer): under 160 MiB, and flat (the largest within 10% of
 *    the smallest). Measured on the bundled driver: under tsx the process would carry ~40 MiB of
 *    tsx's own.
 * The long-link and one-core rows also give CPU seconds per GiB by thread of svc's process (main,
 * hashing thread, the rest), from the driver (bench/lib/thread-cpu.mjs): on a shared, loaded machine
 * they say more than the wall figures. The hashing thread's speed depends on the CPU's SHA
 * instructions: the note says whether they were used (OPENSSL_ia32cap=":~0x20000000" turns them off
 * in Node's OpenSSL, to measure a machine without them).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleDriver } from './lib/bundle-driver.mjs';
import {
  directEnv,
  fmtMiB,
  fmtRate,
  GiB,
  GNU_TIME,
  makeFile,
  median,
  MiB,
  NODE,
  peakRss,
  requireTools,
  ROOT,
  rounds,
  startHelper,
  startServers,
  tempDir,
  timed,
} from './lib/common.mjs';
import { row } from './lib/rows.mjs';
import { standalone } from './lib/standalone.mjs';

const PROXY = join(ROOT, 'bench/lib/long-link-proxy.mjs');
export const LINK = { delayMs: 25, rate: 50e6 };
export const LINK_TEXT = `${LINK.delayMs} ms each way, ${LINK.rate / 1e6} MB/s per connection`;
const MAX_RSS = 160 * MiB;
const MAX_GROWTH = 1.1;
const RSS_CONNECTIONS = 16;

const label = (s) => (s >= GiB ? `${s / GiB} GiB` : `${s / MiB} MiB`);

/** Whether Node's OpenSSL hashes with the CPU's SHA instructions here: they set how fast the hashing thread can go. */
function shaExtensions() {
  let present = false;
  try {
    present = /\bsha_ni\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return 'SHA extensions unknown (no /proc/cpuinfo)';
  }
  if (!present) return 'no SHA extensions on this CPU';
  return process.env.OPENSSL_ia32cap
    ? `SHA extensions present but turned off (OPENSSL_ia32cap=${process.env.OPENSSL_ia32cap})`
    : 'SHA extensions present and used';
}

/**
 * CPU seconds per GiB by thread of the driver's process (bench/lib/thread-cpu.mjs), medians over
 * the runs: on a shared machine these move much less than wall time.
 */
function cpuText(runs, size) {
  if (!runs.length) return 'no CPU figures';
  const per = (f) => (median(runs.map(f)) / (size / GiB)).toFixed(2);
  return (
    `CPU-s per GiB: main thread ${per((c) => c.main.user + c.main.sys)} (user ${per((c) => c.main.user)}), ` +
    `hashing thread ${per((c) => c.hash.user + c.hash.sys)}, libuv pool and V8 helpers ${per((c) => c.others.user + c.others.sys)}, ` +
    `whole process ${per((c) => c.total)}`
  );
}

/** The long-link proxy in its own process, in front of 127.0.0.1:targetPort. */
export async function startLongLink(targetPort) {
  const { child, info } = await startHelper(NODE, [PROXY, String(targetPort), String(LINK.delayMs), String(LINK.rate)], { label: 'long-link proxy' });
  return { child, base: info.base, port: info.port };
}

export async function run({ quick, log }) {
  requireTools(['curl', 'tee', 'sha256sum', 'openssl']);
  if (!GNU_TIME) throw new Error('GNU time is missing (apt-get install -y time)');
  const driver = await bundleDriver();
  const dir = tempDir();
  const sizes = quick ? [64 * MiB, 256 * MiB, 512 * MiB] : [256 * MiB, GiB, 2 * GiB];
  const mainSize = quick ? 256 * MiB : GiB;
  const files = {};
  for (const [i, size] of sizes.entries()) {
    log(`download: writing a ${fmtMiB(size)} artifact`);
    files[size] = { name: `artifact-${size}.bin`, sha256: await makeFile(join(dir, `artifact-${size}.bin`), size, i + 1) };
  }
  const servers = await startServers(dir, { pages: 1 });
  const link = await startLongLink(new URL(servers.base).port);
  const env = directEnv();
  const work = join(dir, 'work');
  const outFile = join(work, 'artifact.dump');
  const curlFile = join(dir, 'curl.out');
  mkdirSync(work);

  const svcArgs = (base, size, connections) => [driver, `${base}/files/${files[size].name}`, String(size), files[size].sha256, work, String(connections)];
  const checkSvc = (stdout, size, connections) => {
    const out = JSON.parse(String(stdout));
    if (out.sha256 !== files[size].sha256 || out.bytes !== size) throw new Error(`the download driver returned ${String(stdout).trim()}`);
    if (size >= 64 * MiB && out.connections !== connections) throw new Error(`the download used ${out.connections} connections, not ${connections}`);
    return out.cpu;
  };
  /** CPU seconds by thread of each timed run, by the name given to svc(). */
  const cpu = {};
  const svc = (base, size, connections = 8, { oneCore = false, name } = {}) => {
    const r = oneCore
      ? timed('taskset', ['-c', '0', NODE, ...svcArgs(base, size, connections)], { env })
      : timed(NODE, svcArgs(base, size, connections), { env });
    rmSync(outFile, { force: true });
    const used = checkSvc(r.stdout, size, connections);
    if (name) (cpu[name] ??= []).push(used);
    return r.ms;
  };
  const svcRss = (size) => {
    const r = peakRss(NODE, svcArgs(servers.base, size, RSS_CONNECTIONS), { env });
    rmSync(outFile, { force: true });
    return r.bytes;
  };
  const curl = (base, size, hasher) => {
    const r = timed('sh', ['-c', `curl -sS --fail "$1" | tee "$2" | ${hasher}`, 'sh', `${base}/files/${files[size].name}`, curlFile], { env });
    rmSync(curlFile, { force: true });
    if (!String(r.stdout).includes(files[size].sha256)) throw new Error(`curl | tee | ${hasher} printed another digest: ${String(r.stdout).trim()}`);
    return r.ms;
  };
  const curlOnly = (size) => {
    const r = timed('curl', ['-sS', '--fail', '-o', curlFile, `${servers.base}/files/${files[size].name}`], { env });
    rmSync(curlFile, { force: true });
    return r.ms;
  };

  // Long link.
  const nLink = quick ? 2 : 3;
  log(`download: long link (${LINK_TEXT}): ${nLink} interleaved rounds of curl | tee | sha256sum and svc with 8 and 4 connections, ${label(mainSize)}`);
  const tl = rounds(
    nLink,
    {
      curl: () => curl(link.base, mainSize, 'sha256sum'),
      svc: () => svc(link.base, mainSize, 8, { name: 'link' }),
      svc4: () => svc(link.base, mainSize, 4),
    },
    { warmup: 0 },
  );

  // One core.
  const nCore = quick ? 1 : 2;
  log(`download: long link on one core (taskset -c 0): ${nCore} interleaved rounds of svc with 8 connections and with 1, ${label(mainSize)}`);
  const tc = rounds(
    nCore,
    {
      svc: () => svc(link.base, mainSize, 8, { oneCore: true, name: 'core' }),
      one: () => svc(link.base, mainSize, 1, { oneCore: true, name: 'one' }),
    },
    { warmup: 0 },
  );

  // Loopback.
  const nLoop = quick ? 3 : 5;
  log(
    `download: loopback: ${nLoop} interleaved rounds of curl | tee | openssl dgst -sha256, svc (8 connections), curl -o and curl | tee | sha256sum, ${label(mainSize)}`,
  );
  const tp = rounds(
    nLoop,
    {
      curl: () => curl(servers.base, mainSize, 'openssl dgst -sha256'),
      svc: () => svc(servers.base, mainSize, 8),
      curlOnly: () => curlOnly(mainSize),
      curlSha256sum: () => curl(servers.base, mainSize, 'sha256sum'),
    },
    { warmup: 1 },
  );

  // Peak RSS.
  const nRss = quick ? 2 : 3;
  log(`download: peak RSS with ${RSS_CONNECTIONS} connections at ${sizes.map(label).join(', ')}: ${nRss} interleaved rounds`);
  const rss = rounds(nRss, Object.fromEntries(sizes.map((s) => [s, () => svcRss(s)])), { warmup: 0 });
  const nodeRss = peakRss(NODE, ['-e', '0'], { env }).bytes;

  const rate = (ms, size = mainSize) => size / ms;
  const linkRatio = rate(median(tl.svc)) / rate(median(tl.curl));
  const loopRatio = rate(median(tp.svc)) / rate(median(tp.curl));
  const coreRatio = rate(median(tc.svc)) / rate(median(tc.one));
  const peaks = sizes.map((s) => median(rss[s]));
  const largest = Math.max(...peaks);
  const growth = peaks[peaks.length - 1] / peaks[0];
  const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
  return [
    row({
      what: `download + verify ${label(mainSize)}, long link (throughput)`,
      figure: fmtRate(rate(median(tl.svc))),
      baseline: fmtRate(rate(median(tl.curl))),
      ratio: `${linkRatio.toFixed(2)}x`,
      targetText: '>= 4x',
      pass: linkRatio >= 4,
      note:
        `userspace proxy bench/lib/long-link-proxy.mjs: ${LINK_TEXT} and direction (token bucket), one extra round trip before a new connection's first bytes. ` +
        `svc downloadArtifact with 8 connections (the default) ${secs(median(tl.svc))} vs curl -s URL | tee FILE | sha256sum ${secs(median(tl.curl))} ` +
        `(one connection; the link allows it ${fmtRate(LINK.rate / 1000)}). svc with 4 connections: ${secs(median(tl.svc4))}, ` +
        `${(rate(median(tl.svc4)) / rate(median(tl.curl))).toFixed(2)}x. ${nLink} runs each. ${shaExtensions()}. ` +
        `svc with 8 connections, ${cpuText(cpu.link, mainSize)}`,
    }),
    row({
      what: `download + verify ${label(mainSize)}, long link, one core (throughput)`,
      figure: fmtRate(rate(median(tc.svc))),
      baseline: fmtRate(rate(median(tc.one))),
      ratio: `${coreRatio.toFixed(2)}x`,
      targetText: '>= 1x',
      pass: coreRatio >= 1,
      note:
        `taskset -c 0 on the svc side (the proxy and server unpinned): 8 connections, hashed in a worker thread that shares the one CPU, ` +
        `${secs(median(tc.svc))} vs --connections 1 (one stream, hashed as it arrives) ${secs(median(tc.one))}; ${nCore} runs each. ` +
        `8 connections: ${cpuText(cpu.core, mainSize)}; one stream: ${cpuText(cpu.one, mainSize)}`,
    }),
    row({
      what: `download + verify ${label(mainSize)}, loopback (throughput)`,
      figure: fmtRate(rate(median(tp.svc))),
      baseline: fmtRate(rate(median(tp.curl))),
      ratio: `${loopRatio.toFixed(2)}x`,
      targetText: '>= 0.95x',
      pass: loopRatio >= 0.95,
      note:
        `no proxy; svc with 8 connections ${secs(median(tp.svc))} vs curl -s URL | tee FILE | openssl dgst -sha256 ${secs(median(tp.curl))}; ${nLoop} runs each. ` +
        `For the record: curl | tee | sha256sum ${fmtRate(rate(median(tp.curlSha256sum)))} (coreutils sha256sum does not use the SHA instructions here), ` +
        `curl -o FILE alone (no digest) ${fmtRate(rate(median(tp.curlOnly)))}`,
    }),
    row({
      what: `download peak RSS at ${sizes.map(label).join(' / ')}, ${RSS_CONNECTIONS} connections`,
      figure: peaks.map((p) => fmtMiB(p)).join(' / '),
      baseline: fmtMiB(peaks[0]),
      ratio: `${growth.toFixed(2)}x`,
      targetText: '< 160 MiB, flat',
      pass: largest < MAX_RSS && growth <= MAX_GROWTH,
      note:
        `max RSS of the whole node process (GNU time %M), median of ${nRss} runs per size, loopback; the driver bundled with esbuild ` +
        `(under tsx the process would carry ~40 MiB of tsx's own); node -e 0 alone: ${fmtMiB(nodeRss)}. ` +
        `Flat = largest size within ${Math.round((MAX_GROWTH - 1) * 100)}% of the smallest`,
    }),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await standalone(run);

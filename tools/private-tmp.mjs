/**
 * Runs the test suite's temporary files in memory: a command, with TMPDIR pointing at a tmpfs that
 * only it sees, mounted in a private mount namespace (`unshare --mount`). When the command's last
 * process ends, the namespace goes and the tmpfs with it; nothing outside ever sees the mount, and
 * the empty directory it was mounted on is removed afterwards.
 *
 * Why: the suite makes and drops some 170 PostgreSQL data directories (966 files each) and thousands
 * of databases, and on this VM's ext4 creating a file soon after others were deleted costs about
 * 0.8 ms of kernel time (openat, measured with strace -T). A run spent 121 CPU-s in `cp` and 159 in
 * PostgreSQL; in a tmpfs, 7 and 42 (docs/development.md). Nothing that is tested changes: the same
 * servers, tools and files, in another filesystem.
 *
 * Used where Linux lets this process make the namespace (root, or CAP_SYS_ADMIN) and the machine has
 * memory to spare; elsewhere, and with SVC_TEST_PRIVATE_TMP=0, the command runs as it is.
 *   node tools/private-tmp.mjs <command> [args...]    (as .ci/run does for its further vitest runs)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The tmpfs's cap: the suite's temporary files peak at about 1.2 GiB (sampled each second with df in the namespace). */
const SIZE_GIB = 4;
/** Free memory a run needs beside the tmpfs: PostgreSQL servers, vitest's workers, the built CLIs. */
const SPARE_GIB = 2;

const MOUNT = 'mount -t tmpfs -o "mode=1777,size=$1" svc-test-tmp "$0" && shift && exec "$@"';

/** Free memory in GiB (MemAvailable), or 0 where /proc/meminfo does not say. */
function availableGiB() {
  try {
    const kib = Number(/^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
    return kib / 1024 / 1024;
  } catch {
    return 0;
  }
}

/** Why the tmpfs cannot be used here, or undefined when it can (a mount in a throwaway namespace was tried). */
function unavailable(dir) {
  if (process.env.SVC_TEST_PRIVATE_TMP === '0') return 'SVC_TEST_PRIVATE_TMP=0';
  if (process.platform !== 'linux') return 'not Linux';
  if (availableGiB() < SIZE_GIB + SPARE_GIB) return `less than ${SIZE_GIB + SPARE_GIB} GiB of free memory`;
  try {
    execFileSync('unshare', ['--mount', 'sh', '-c', MOUNT, dir, '1m', 'true'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'no private mount namespace allowed (unshare --mount needs root or CAP_SYS_ADMIN)';
  }
}

/** A child's exit code once it has closed: its own, or 128 when a signal ended it, else 1. */
export const exited = (child) => new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1))));

/**
 * Spawns `command args` with its temporary files in a private tmpfs where it can, else as it is.
 * Resolves with what spawn's child gives; the mount point is removed once the child has closed.
 */
export function spawnWithPrivateTmp(command, args, options = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-tmp-'));
  const why = unavailable(dir);
  const child =
    why === undefined
      ? spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', MOUNT, dir, `${SIZE_GIB}g`, command, ...args], {
          ...options,
          env: { ...(options.env ?? process.env), TMPDIR: dir },
        })
      : spawn(command, args, options);
  if (why !== undefined) process.stderr.write(`npm test: temporary files stay in ${tmpdir()} (${why}); a tmpfs of their own is faster.\n`);
  child.on('close', () => {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty: the command ran without the tmpfs and left something there; leave it to be seen.
    }
  });
  return child;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write('usage: node tools/private-tmp.mjs <command> [args...]\n');
    process.exit(2);
  }
  process.exitCode = await exited(spawnWithPrivateTmp(command, args, { stdio: 'inherit' }));
}

import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { configDir } from '../config/paths.js';
import { LocalToolError } from '../errors.js';
import { pathDirs, programsIn } from '../restore/target/pg-install.js';

type Env = Record<string, string | undefined>;

/** How the scratch cluster is kept from svc's processes and files (cli-contract 9.16). */
export type IsolationLevel = 'os-user' | 'namespace' | 'none';
/** --isolation: `auto` takes what the machine allows; `required` refuses `none`. */
export type IsolationMode = 'auto' | 'required';

/** What a confined program may see besides the system's read-only directories. */
export interface ConfinedPaths {
  /** The cluster's directory, the only writable one. */
  dir: string;
  /** The server binaries' directory. */
  bindir: string;
  /** A short link to `dir` for the server's socket (socket-path.ts), made the same inside. */
  link?: string;
}

export interface Isolation {
  level: IsolationLevel;
  /** `namespace` only: the argv that runs `argv` in user, PID, mount, IPC and network namespaces of its own. */
  confine?: (argv: string[], paths: ConfinedPaths) => string[];
}

// Read-only from the host: what the server's programs and libraries need, /etc for the passwd entry
// and locale files. No home directory, no /proc of the host, no /tmp, no /run.
const SYSTEM = ['/usr', '/etc', '/opt', '/nix', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

function systemBinds(): string[] {
  const args: string[] = [];
  for (const path of SYSTEM) {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (st?.isDirectory()) args.push('--ro-bind', path, path);
  }
  return args;
}

/** The binaries' directory with its siblings (lib, share), unless that would take in the home directory. */
function binariesBind(bindir: string, home: string): string {
  const parent = dirname(bindir);
  return parent === '/' || `${home}/`.startsWith(`${parent}/`) ? bindir : parent;
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** What never reaches the server: the home directory and svc's config directory (the credentials file). */
function hiddenDirs(env: Env): string[] {
  return [env.HOME || homedir(), configDir(env)];
}

function bwrap(tool: string, hidden: string[]): Isolation['confine'] {
  tool = realpathSync(tool);
  return (argv, paths) => {
    const binaries = binariesBind(paths.bindir, hidden[0]!);
    // A hidden directory that lies in a directory bound from the host gets an empty tmpfs over it.
    const covered = hidden.filter((h) => [...SYSTEM, binaries].some((d) => under(h, d)) && lstatSync(h, { throwIfNoEntry: false })?.isDirectory());
    return [
      tool,
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--new-session',
      ...systemBinds(),
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/dev/shm',
      '--tmpfs',
      '/tmp',
      '--ro-bind',
      binaries,
      binaries,
      ...covered.flatMap((h) => ['--tmpfs', h]),
      '--bind',
      paths.dir,
      paths.dir,
      ...(paths.link ? ['--symlink', paths.dir, paths.link] : []),
      '--chdir',
      paths.dir,
      '--',
      ...argv,
    ];
  };
}

/**
 * util-linux unshare cannot mount as the user it maps: an outer namespace maps svc's user to root,
 * mounts a fresh /proc and an empty tmpfs over the home directories, svc's config directory, /tmp and
 * /run/user (the cluster's directory and the server binaries are bound back, through descriptors
 * opened before, where they lay under one), and an inner user namespace maps root back to svc's uid,
 * which the server requires (it refuses to run as root).
 */
const UNSHARE_SCRIPT = [
  'set -e',
  'dir=$1 bin=$2 link=$3 uid=$4 gid=$5 mount=$6 mkdir=$7 ln=$8 unshare=$9; shift 9',
  'exec 3<"$dir" 4<"$bin"',
  'n=$1; shift',
  'while [ "$n" -gt 0 ]; do if [ -d "$1" ]; then "$mount" -t tmpfs -o mode=0755 none "$1"; fi; shift; n=$((n - 1)); done',
  '"$mkdir" -p "$dir" "$bin"',
  // --no-canonicalize: mount would resolve the descriptor's link to a path, which names the tmpfs now.
  '"$mount" --no-canonicalize --bind /proc/self/fd/3 "$dir"',
  '"$mount" --no-canonicalize --bind /proc/self/fd/4 "$bin"',
  'exec 3<&- 4<&-',
  'if [ -n "$link" ]; then "$ln" -sfn "$dir" "$link"; fi',
  'cd "$dir"',
  'exec "$unshare" --user --map-user="$uid" --map-group="$gid" -- "$@"',
].join('\n');

/** The programs the script runs once PATH's directories may be hidden: each resolved to where it really is. */
const HELPERS = ['mount', 'mkdir', 'ln', 'unshare'] as const;

function unshare(tool: string, hidden: string[], dirs: string[]): Isolation['confine'] {
  const helpers = HELPERS.map((name) => {
    const [found] = programsIn(name, dirs);
    return found ? realpathSync(found) : undefined;
  });
  if (helpers.includes(undefined)) return undefined;
  const ids = [String(process.getuid?.() ?? 0), String(process.getgid?.() ?? 0)];
  const covered = ['/home', '/root', '/tmp', '/var/tmp', '/run/user', ...hidden];
  return (argv, paths) => [
    realpathSync(tool),
    '--user',
    '--map-root-user',
    '--pid',
    '--fork',
    '--mount-proc',
    '--ipc',
    '--net',
    '--uts',
    '--',
    '/bin/sh',
    '-c',
    UNSHARE_SCRIPT,
    'sh',
    paths.dir,
    paths.bindir,
    paths.link ?? '',
    ...ids,
    ...(helpers as string[]),
    String(covered.length),
    ...covered,
    ...argv,
  ];
}

/** Whether the confined server binaries run: the kernel may refuse user namespaces (a sysctl, AppArmor). */
async function works(confine: NonNullable<Isolation['confine']>, bindir: string, workDir: string, env: Env): Promise<boolean> {
  const [cmd, ...args] = confine([join(bindir, 'postgres'), '--version'], { dir: workDir, bindir });
  const r = await execa(cmd!, args, { env: { PATH: env.PATH }, extendEnv: false, reject: false, stdin: 'ignore', timeout: 15_000 }).catch(() => undefined);
  return r?.exitCode === 0;
}

/**
 * The isolation of a scratch cluster, chosen in the preflight: as root another OS user (os-user.ts);
 * else bubblewrap, then unshare, from PATH, where the kernel lets them make a user namespace; else
 * none, said on stderr, or with --isolation required exit 11 before any createRestore.
 */
export async function chooseIsolation(mode: IsolationMode, bindir: string, workDir: string, env: Env, note: (text: string) => void): Promise<Isolation> {
  if (process.getuid?.() === 0) return { level: 'os-user' };
  const hidden = hiddenDirs(env);
  const dirs = pathDirs(env);
  for (const [name, make] of [
    ['bwrap', bwrap],
    ['unshare', unshare],
  ] as const) {
    const [tool] = programsIn(name, dirs);
    if (!tool) continue;
    const confine = make(tool, hidden, dirs);
    if (!confine) continue;
    if (await works(confine, bindir, workDir, env)) return { level: 'namespace', confine };
  }
  const why = 'No user namespace could be made for the scratch cluster (neither bwrap nor unshare from PATH could run the server in one)';
  if (mode === 'required') {
    throw new LocalToolError(
      `${why}, and --isolation required refuses to run it as your own user.`,
      'Allow unprivileged user namespaces (sysctl user.max_user_namespaces above 0; Debian: kernel.unprivileged_userns_clone=1; Ubuntu 24.04: an AppArmor profile for bwrap, or kernel.apparmor_restrict_unprivileged_userns=0), install bubblewrap, run svc as root (the cluster then runs as the postgres user), or drill on a server of yours with --scratch <dsn>.',
    );
  }
  note(
    `warning: ${why}: the scratch cluster runs as your own user, so code of a backup that escapes PostgreSQL could read svc's environment and your files, the API token included. --isolation required refuses this.`,
  );
  return { level: 'none' };
}

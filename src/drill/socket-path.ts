import { randomBytes } from 'node:crypto';
import { rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';

/** The longest socket path the server accepts (sun_path less its terminator); the name ends `.s.PGSQL.<port>`. */
const MAX_SOCKET_PATH = 107;
const SOCKET_NAME = '.s.PGSQL.65535';

export interface SocketDir {
  /** Where the server makes its socket and clients look for it: the cluster's directory, or a short link to it. */
  path: string;
  /** The link, where one was needed. */
  link?: string;
  dispose(): Promise<void>;
}

/**
 * The scratch server's Unix socket lives in the cluster's own 0700 directory. Under a deep --work-dir
 * its path would pass the kernel's limit, and the server would refuse to start: then a link with a
 * short random name under /tmp leads to that directory (the socket itself stays in it).
 */
export async function socketDir(dir: string): Promise<SocketDir> {
  if (join(dir, SOCKET_NAME).length <= MAX_SOCKET_PATH) return { path: dir, dispose: async () => {} };
  for (;;) {
    const link = join('/tmp', `svc-sock-${randomBytes(6).toString('hex')}`);
    try {
      await symlink(dir, link);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    return { path: link, link, dispose: () => rm(link, { force: true }) };
  }
}

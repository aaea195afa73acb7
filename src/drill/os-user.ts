import { readFileSync } from 'node:fs';

export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

/** A user of /etc/passwd by name; undefined where there is none (or no such file). */
function passwdUser(name: string): OsUser | undefined {
  let text: string;
  try {
    text = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/**
 * Who a scratch cluster runs as: svc's own user, or as root (which the server refuses to run as) an
 * unprivileged one, `postgres` where it exists, else `nobody` (cli-contract 9, step 2). undefined:
 * run as svc's own user.
 */
export function serverUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return passwdUser('postgres') ?? passwdUser('nobody');
}

import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Socket directories libpq's builds use by default: a password file names them as "localhost". */
const DEFAULT_SOCKET_DIRS = new Set(['/var/run/postgresql', '/run/postgresql', '/tmp']);

/** A line's fields, `\` escaping the next character (a ':' or '\' inside a field), as libpq reads them. */
function fields(line: string): string[] {
  const out: string[] = [''];
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) out[out.length - 1] += line[++i]!;
    else if (c === ':' && out.length < 5) out.push('');
    else out[out.length - 1] += c;
  }
  return out;
}

/**
 * The password the password file gives for this connection, as libpq looks it up (PGPASSFILE, else
 * ~/.pgpass; the first line whose host, port, database and user match, `*` matching any); none where
 * the file is missing, not a plain file, or readable by others (libpq ignores it then, with a warning).
 */
export function passwordFromFile(path: string | undefined, host: string, port: number, database: string, user: string): string | undefined {
  const file = path || join(homedir(), '.pgpass');
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile() || (st.mode & 0o077) !== 0) return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const name = host.startsWith('/') && DEFAULT_SOCKET_DIRS.has(host) ? 'localhost' : host;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (!line || line.startsWith('#')) continue;
    const f = fields(line);
    if (f.length < 5) continue;
    const wanted = [name, String(port), database, user];
    if (wanted.every((value, i) => f[i] === '*' || f[i] === value)) return f[4];
  }
  return undefined;
}

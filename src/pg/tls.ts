import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { parse } from 'pg-connection-string';
import type { TlsPlan } from './wire.js';

type Env = Record<string, string | undefined>;

/**
 * libpq's sslmode as a TlsPlan: the target's own settings, else the environment's (where libpq would
 * look too), else libpq's default, prefer; the certificate files where libpq looks for them
 * (~/.postgresql/ by default, each only where it exists). What each mode verifies is
 * pg-connection-string's libpq-compatible reading (`useLibpqCompat`): require checks nothing unless
 * a root certificate is there (then as verify-ca), verify-ca checks the chain, verify-full the host too.
 * Only the TLS settings go through it: the URI itself is read by svc's port of libpq's parser (libpq-uri.ts).
 */
export function tlsPlan(params: Record<string, string>, env: Env, host: string): TlsPlan {
  const setting = (name: string) => params[name] ?? env[name];
  const mode = setting('PGSSLMODE') || 'prefer';
  if (host.startsWith('/') || mode === 'disable' || mode === 'allow') return { ssl: false, plainFallback: false };
  const dotDir = join(homedir(), '.postgresql');
  const file = (name: string, fallback: string) => {
    const path = setting(name) ?? join(dotDir, fallback);
    return existsSync(path) ? path : undefined;
  };
  const sslrootcert = file('PGSSLROOTCERT', 'root.crt');
  const sslcert = file('PGSSLCERT', 'postgresql.crt');
  const sslkey = sslcert ? file('PGSSLKEY', 'postgresql.key') : undefined;
  if (mode.startsWith('verify-') && !sslrootcert) {
    const path = setting('PGSSLROOTCERT') ?? join(dotDir, 'root.crt');
    throw new Error(`root certificate file "${path}" does not exist; either provide the file or change sslmode to disable server certificate verification`);
  }
  const query = new URLSearchParams({ sslmode: mode });
  if (sslrootcert) query.set('sslrootcert', sslrootcert);
  if (sslcert && sslkey) for (const [name, path] of Object.entries({ sslcert, sslkey })) query.set(name, path);
  const { ssl } = parse(`postgresql://?${query}`, { useLibpqCompat: true });
  return { ssl: typeof ssl === 'object' ? (ssl as ConnectionOptions) : {}, plainFallback: mode === 'prefer' };
}

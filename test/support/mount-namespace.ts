import { execaSync } from 'execa';
import { pgSkipReason } from './pg-cluster.js';

/**
 * Why a test that runs the built CLI in a private mount namespace (`unshare --mount`, as root: a tmpfs
 * over a directory for one run only) cannot run here: no PostgreSQL, or no such namespace. Under CI
 * it never skips: there a missing namespace is a failure.
 */
export function mountNamespaceSkipReason(): string | undefined {
  const pg = pgSkipReason();
  if (pg) return pg;
  const ci = process.env.CI;
  if (ci && ci !== 'false' && ci !== '0') return undefined;
  const probe = execaSync('unshare', ['--mount', '--propagation', 'private', 'true'], { reject: false, stdin: 'ignore' });
  return probe.exitCode === 0
    ? undefined
    : `unshare --mount is not allowed here (${String(probe.stderr).trim() || probe.exitCode}); set CI=true to make this a failure`;
}

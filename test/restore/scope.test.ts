import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect, it } from 'vitest';
import { RunScope } from '../../src/restore/scope.js';
import { parseTarget } from '../../src/restore/target/target.js';

/**
 * The children (psql, pg_restore) must connect to --target and nothing else. libpq takes a service
 * named by PGSERVICE before the PGHOST/PGPORT the engine sets, and PGHOSTADDR over the host's
 * address: inherited from the user's shell, either one redirected the restore (an --in-place
 * restore with PGSERVICE=prod exported went to prod's host while svc printed localhost).
 */
it('the child environment carries no PGSERVICE or PGHOSTADDR from the parent', async () => {
  const userEnv = { PATH: '/usr/bin', PGSERVICE: 'prod', PGHOSTADDR: '10.0.0.5', PGSERVICEFILE: '/tmp/pg_service.conf' };
  const target = parseTarget('postgresql://app@localhost:5433/scratch', userEnv);
  const scope = new RunScope();
  try {
    const env = await scope.pgEnv(target, userEnv);
    expect(env.PGSERVICE).toBeUndefined();
    expect(env.PGHOSTADDR).toBeUndefined();
    expect(env).toMatchObject({ PGHOST: 'localhost', PGPORT: '5433', PGUSER: 'app', PGDATABASE: 'scratch', PATH: '/usr/bin' });
  } finally {
    await scope.dispose();
  }
});

it('the same holds when the DSN carries a password (PGPASSFILE variant)', async () => {
  const userEnv = { PGSERVICE: 'prod', PGHOSTADDR: '10.0.0.5' };
  const scope = new RunScope();
  let passfile: string | undefined;
  try {
    const env = await scope.pgEnv(parseTarget('postgresql://app:s3cret-pw@localhost/scratch', userEnv), userEnv);
    expect(env.PGSERVICE).toBeUndefined();
    expect(env.PGHOSTADDR).toBeUndefined();
    passfile = env.PGPASSFILE;
    expect(passfile).toBeDefined();
    expect(statSync(passfile!).mode & 0o777).toBe(0o600);
    expect(readFileSync(passfile!, 'utf8')).toBe('*:*:*:app:s3cret-pw\n');
  } finally {
    await scope.dispose();
  }
  // The run's scope owns the PGPASSFILE: disposing it removes the file and its directory.
  expect(existsSync(passfile!)).toBe(false);
  expect(existsSync(dirname(passfile!))).toBe(false);
});

import { expect, it } from 'vitest';
import { createPgEnv } from '../../src/restore/pg-env.js';
import { parseTarget } from '../../src/restore/target.js';

/**
 * The children (psql, pg_restore) must connect to --target and nothing else. libpq takes a service
 * named by PGSERVICE before the PGHOST/PGPORT the engine sets, and PGHOSTADDR over the host's
 * address: inherited from the user's shell, either one redirected the restore (an --in-place
 * restore with PGSERVICE=prod exported went to prod's host while svc printed localhost).
 */
it('the child environment carries no PGSERVICE or PGHOSTADDR from the parent', async () => {
  const userEnv = { PATH: '/usr/bin', PGSERVICE: 'prod', PGHOSTADDR: '10.0.0.5', PGSERVICEFILE: '/tmp/pg_service.conf' };
  const target = parseTarget('postgresql://app@localhost:5433/scratch', userEnv);
  const pgEnv = await createPgEnv(target, userEnv);
  try {
    expect(pgEnv.env.PGSERVICE).toBeUndefined();
    expect(pgEnv.env.PGHOSTADDR).toBeUndefined();
    expect(pgEnv.env).toMatchObject({ PGHOST: 'localhost', PGPORT: '5433', PGUSER: 'app', PGDATABASE: 'scratch', PATH: '/usr/bin' });
  } finally {
    await pgEnv.dispose();
  }
});

it('the same holds when the DSN carries a password (PGPASSFILE variant)', async () => {
  const userEnv = { PGSERVICE: 'prod', PGHOSTADDR: '10.0.0.5' };
  const pgEnv = await createPgEnv(parseTarget('postgresql://app:s3cret-pw@localhost/scratch', userEnv), userEnv);
  try {
    expect(pgEnv.env.PGSERVICE).toBeUndefined();
    expect(pgEnv.env.PGHOSTADDR).toBeUndefined();
    expect(pgEnv.env.PGPASSFILE).toBeDefined();
  } finally {
    await pgEnv.dispose();
  }
});

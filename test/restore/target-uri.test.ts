import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { RunScope } from '../../src/restore/scope.js';
import { parseTarget, redactedDsn, type Target } from '../../src/restore/target/target.js';

/**
 * svc must read --target exactly as libpq reads a URI (cli-contract 7.1). These rows pin the reading
 * without a server; test/restore/target-libpq.test.ts holds each kind of row against psql itself.
 */

const noEnv: Record<string, string | undefined> = {};
const osUser = userInfo().username;

async function childEnv(target: Target, baseEnv: Record<string, string | undefined>) {
  const scope = new RunScope();
  try {
    return { ...(await scope.pgEnv(target, baseEnv)) };
  } finally {
    await scope.dispose();
  }
}

function refusal(dsn: string, env = noEnv): UsageError {
  try {
    parseTarget(dsn, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('parseTarget accepted the URI');
}

describe('percent-encoding is decoded exactly once, as libpq does', () => {
  it.each([
    ['postgresql://u:pw@host/sales%232024', 'sales#2024'],
    ['postgresql://u@host/sales#2024', 'sales#2024'], // libpq has no fragment: '#' is part of the name
    ['postgresql://u@host/50%2523', '50%23'], // once, not twice
    ['postgresql://u@host/50%25off', '50%off'],
    ['postgresql://u@host/a+b', 'a+b'], // '+' is not a space in libpq
    ['postgresql://u@host/with%20space', 'with space'],
    ["postgresql://u@host/o'quote", "o'quote"],
    ['postgresql://u@host/o%27quote', "o'quote"],
    ['postgresql://u@host/caf%C3%A9%20%C3%BC', 'café ü'],
    ['postgresql://u@host/café ü', 'café ü'],
    ['postgresql://u@host/a%2Fb%3Fc', 'a/b?c'],
    ['postgresql://u@host/wrong?dbname=sales%232024', 'sales#2024'], // a query setting replaces the path's
  ])('%s names the database %j', (dsn, database) => {
    expect(parseTarget(dsn, noEnv).database).toBe(database);
  });

  it.each([
    ['postgresql://o%27brien%20%231:p%40ss%3Aw%2Frd%3F%23%25@h/d', "o'brien #1", 'p@ss:w/rd?#%'],
    ['postgresql://us%40er:p%40ss@[::1]:5433/d', 'us@er', 'p@ss'],
    ['postgresql://u:pw+1@h/d', 'u', 'pw+1'],
    ['postgresql://u:@h/d', 'u', undefined], // libpq: an empty password is no password
    ['postgresql://nobody:wrong@h/d?user=app&password=s%26cret%3D', 'app', 's&cret='],
    ['postgresql://u:line1%0Aline2@h/d', 'u', 'line1\nline2'],
  ])('%s is user %j with password %j', (dsn, user, password) => {
    const t = parseTarget(dsn, noEnv);
    expect(t.user).toBe(user);
    expect(t.password).toBe(password);
    expect(t.params.PGUSER).toBe(user);
  });

  it('decodes every query value once and lets the last setting win', () => {
    const t = parseTarget('postgresql://h/d?options=-c%20search_path%3Dsales%2Cpublic&application_name=a%26b%2Bc&sslmode=disable&sslmode=require', noEnv);
    expect(t.params).toEqual({ PGHOST: 'h', PGOPTIONS: '-c search_path=sales,public', PGAPPNAME: 'a&b+c', PGSSLMODE: 'require' });
  });

  it.each([
    ['requiressl=1', 'require'],
    ['requiressl=0', 'prefer'],
    ['ssl=true', 'require'],
    ['sslmode=disable&requiressl=1', 'require'],
    ['requiressl=1&sslmode=disable', 'disable'],
  ])('%s reaches the children as PGSSLMODE=%s (libpq translates it)', (query, mode) => {
    expect(parseTarget(`postgresql://h/d?${query}`, noEnv).params.PGSSLMODE).toBe(mode);
  });
});

describe('every libpq 15 parameter with an environment variable reaches the children through it', () => {
  const rows: Array<[keyword: string, envName: string]> = [
    ['host', 'PGHOST'],
    ['hostaddr', 'PGHOSTADDR'],
    ['port', 'PGPORT'],
    ['user', 'PGUSER'],
    ['passfile', 'PGPASSFILE'],
    ['channel_binding', 'PGCHANNELBINDING'],
    ['connect_timeout', 'PGCONNECT_TIMEOUT'],
    ['client_encoding', 'PGCLIENTENCODING'],
    ['options', 'PGOPTIONS'],
    ['application_name', 'PGAPPNAME'],
    ['sslmode', 'PGSSLMODE'],
    ['requiressl', 'PGSSLMODE'],
    ['sslcompression', 'PGSSLCOMPRESSION'],
    ['sslcert', 'PGSSLCERT'],
    ['sslkey', 'PGSSLKEY'],
    ['sslrootcert', 'PGSSLROOTCERT'],
    ['sslcrl', 'PGSSLCRL'],
    ['sslcrldir', 'PGSSLCRLDIR'],
    ['sslsni', 'PGSSLSNI'],
    ['requirepeer', 'PGREQUIREPEER'],
    ['ssl_min_protocol_version', 'PGSSLMINPROTOCOLVERSION'],
    ['ssl_max_protocol_version', 'PGSSLMAXPROTOCOLVERSION'],
    ['gssencmode', 'PGGSSENCMODE'],
    ['krbsrvname', 'PGKRBSRVNAME'],
    ['gsslib', 'PGGSSLIB'],
    ['target_session_attrs', 'PGTARGETSESSIONATTRS'],
  ];

  it.each(rows)('%s -> %s, decoded', async (keyword, envName) => {
    const value = keyword === 'port' ? '6543' : keyword === 'requiressl' ? '1' : '/x y/%#1';
    const expected = keyword === 'requiressl' ? 'require' : value;
    // No password in the URI: with one, PGPASSFILE would be svc's own file (next row).
    const t = parseTarget(`postgresql://u@h/d?${keyword}=${encodeURIComponent(value)}`, noEnv);
    expect(t.params[envName]).toBe(expected);
    const env = await childEnv(t, { PATH: '/usr/bin' });
    expect(env[envName]).toBe(expected);
  });

  it('the URI password wins over a passfile parameter, as in libpq', async () => {
    const env = await childEnv(parseTarget('postgresql://u:pw@h/d?passfile=%2Fhome%2Fu%2Fpgpass', noEnv), {});
    expect(env.PGPASSFILE).toMatch(/svc-pgpass-.*\/pgpass$/);
    const withoutPassword = await childEnv(parseTarget('postgresql://u@h/d?passfile=%2Fhome%2Fu%2Fpgpass', noEnv), {});
    expect(withoutPassword.PGPASSFILE).toBe('/home/u/pgpass');
  });

  it('an empty value is passed on as given: libpq treats it as set (sslmode= is an error there too)', async () => {
    const env = await childEnv(parseTarget('postgresql://h/d?sslmode=', noEnv), { PGSSLMODE: 'require' });
    expect(env.PGSSLMODE).toBe('');
  });

  it('settings the URI leaves out stay as the user exported them, which is where libpq looks too', async () => {
    const env = await childEnv(parseTarget('postgresql://h/d', noEnv), { PGSSLMODE: 'verify-full', PGAPPNAME: 'mine', PGPASSWORD: 'x' });
    expect(env).toMatchObject({ PGSSLMODE: 'verify-full', PGAPPNAME: 'mine', PGPASSWORD: 'x', PGCONNECT_TIMEOUT: '10' });
  });
});

describe('a URI without a host uses libpq default (the Unix socket), never TCP localhost', () => {
  it.each([
    ['postgresql:///db', noEnv, undefined, `postgresql://${encodeURIComponent(osUser)}@:5432/db`],
    ['postgresql://app@/db', noEnv, undefined, 'postgresql://app@:5432/db'],
    ['postgresql://app@:6000/db', noEnv, undefined, 'postgresql://app@:6000/db'],
    ['postgresql://app@/db', { PGHOST: '/tmp/pg sock', PGPORT: '6001' }, '/tmp/pg sock', 'postgresql://app@%2Ftmp%2Fpg%20sock:6001/db'],
    ['postgresql://app@/db', { PGHOST: 'pg.internal' }, 'pg.internal', 'postgresql://app@pg.internal:5432/db'],
    ['postgresql://app@/db?host=%2Fvar%2Frun%2Fpostgresql', noEnv, '/var/run/postgresql', 'postgresql://app@%2Fvar%2Frun%2Fpostgresql:5432/db'],
    ['postgresql://app@/db?host=/var/run/postgresql', noEnv, '/var/run/postgresql', 'postgresql://app@%2Fvar%2Frun%2Fpostgresql:5432/db'],
    ['postgresql://app@%2Fvar%2Frun%2Fpostgresql:5433/db', noEnv, '/var/run/postgresql', 'postgresql://app@%2Fvar%2Frun%2Fpostgresql:5433/db'],
    // An explicit empty host hides the user's PGHOST from libpq: the default socket again.
    ['postgresql://app@/db?host=', { PGHOST: 'remote.example' }, undefined, 'postgresql://app@:5432/db'],
    // hostaddr without a host is TCP to that address.
    ['postgresql://app@/db?hostaddr=127.0.0.1', noEnv, '127.0.0.1', 'postgresql://app@127.0.0.1:5432/db'],
  ])('%s with %j connects to %j, shown as %s', async (dsn, env, host, redacted) => {
    const t = parseTarget(dsn, env);
    expect(t.host).toBe(host);
    expect(redactedDsn(t)).toBe(redacted);
    const child = await childEnv(t, { ...env, PATH: '/usr/bin' });
    if (host === undefined) expect(child.PGHOST ?? '').toBe('');
    else if (!dsn.includes('hostaddr')) expect(child.PGHOST).toBe(host);
  });

  it('sets no PGHOST at all when neither the URI nor the user names a host', async () => {
    const child = await childEnv(parseTarget('postgresql:///db', noEnv), { PATH: '/usr/bin' });
    expect('PGHOST' in child).toBe(false);
    expect('PGPORT' in child).toBe(false);
  });
});

describe('a password that a .pgpass line cannot hold goes through the child environment', () => {
  it.each([
    ['line1%0Aline2', 'line1\nline2'],
    ['cr-at-end%0D', 'cr-at-end\r'],
  ])('%s: PGPASSWORD, no PGPASSFILE', async (encoded, password) => {
    const scope = new RunScope();
    try {
      const env = await scope.pgEnv(parseTarget(`postgresql://u:${encoded}@h/d`, noEnv), { PGPASSWORD: 'inherited', PGPASSFILE: '/home/u/.pgpass' });
      expect(env.PGPASSWORD).toBe(password);
      expect(env.PGPASSFILE).toBe('/home/u/.pgpass'); // unused: PGPASSWORD ranks above any passfile
    } finally {
      await scope.dispose();
    }
  });

  it('any other password goes into svc own 0600 PGPASSFILE, with the inherited PGPASSWORD removed', async () => {
    const scope = new RunScope();
    const env = await scope.pgEnv(parseTarget('postgresql://u:p%3Aw%5C1@h/d', noEnv), { PGPASSWORD: 'inherited' });
    expect(env.PGPASSWORD).toBeUndefined();
    expect(existsSync(env.PGPASSFILE!)).toBe(true);
    await scope.dispose();
    expect(existsSync(env.PGPASSFILE!)).toBe(false);
  });
});

describe('sslmode=verify-ca without a root certificate', () => {
  it('is passed on for libpq to check at connect (~/.postgresql/root.crt or PGSSLROOTCERT), with no file read by svc', () => {
    const t = parseTarget('postgresql://u:pw@h/d?sslmode=verify-ca', noEnv);
    expect(t.params).toEqual({ PGUSER: 'u', PGHOST: 'h', PGSSLMODE: 'verify-ca' });
    // Certificate paths are libpq's to open: a missing file is no parse error.
    const withFiles = parseTarget(
      'postgresql://u@h/d?sslmode=verify-full&sslrootcert=%2Fnonexistent%2Fca.crt&sslcert=%2Fnope.crt&sslkey=%2Fnope.key&sslcrl=%2Fnope.crl',
      noEnv,
    );
    expect(withFiles.params).toMatchObject({ PGSSLROOTCERT: '/nonexistent/ca.crt', PGSSLCERT: '/nope.crt', PGSSLKEY: '/nope.key', PGSSLCRL: '/nope.crl' });
  });
});

describe('what svc cannot pass on is refused (exit 2, named, no secret echoed)', () => {
  const secret = 'hunter2';
  it.each([
    ['fallback_application_name=x', 'fallback_application_name', 'no environment variable'],
    ['keepalives=1', 'keepalives', 'no environment variable'],
    ['keepalives_idle=30', 'keepalives_idle', 'no environment variable'],
    ['keepalives_interval=5', 'keepalives_interval', 'no environment variable'],
    ['keepalives_count=3', 'keepalives_count', 'no environment variable'],
    ['tcp_user_timeout=1000', 'tcp_user_timeout', 'no environment variable'],
    ['sslpassword=keypass', 'sslpassword', 'no environment variable'],
    ['replication=database', 'replication', 'no environment variable'],
    ['service=prod', 'service', 'service file'],
    ['require_auth=scram-sha-256', 'require_auth', 'libpq 16'],
    ['sslcertmode=require', 'sslcertmode', 'libpq 16'],
    ['load_balance_hosts=random', 'load_balance_hosts', 'libpq 16'],
    ['sslnegotiation=direct', 'sslnegotiation', 'libpq 16'],
    ['ssl=false', 'ssl', 'not a libpq connection parameter'],
    ['SSLMODE=require', 'SSLMODE', 'not a libpq connection parameter'],
    ['uselibpqcompat=true', 'uselibpqcompat', 'not a libpq connection parameter'],
    ['application_name=x&foo=1', 'foo', 'not a libpq connection parameter'],
    ['sslmode', 'sslmode', 'has no value'],
    ['options=-c search_path=x', 'options', 'second "="'],
  ])('?%s is refused naming %s', (query, name, why) => {
    const err = refusal(`postgresql://app:${secret}@db.example.com/d?${query}`);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(`"${name}"`);
    expect(err.message).toContain(why);
    const everything = `${err.message} ${err.details.hint ?? ''} ${JSON.stringify(err)}`;
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain('db.example.com');
  });

  it.each([
    [`postgresql://app:${secret}@h1,h2/d`, 'comma-separated'],
    [`postgresql://app:${secret}@h1:5432,h2:5433/d`, 'comma-separated'],
    [`postgresql://app:${secret}@h/d?hostaddr=10.0.0.1,10.0.0.2`, 'comma-separated'],
    [`postgresql://app:${secret}@h/d?port=5432,5433`, 'comma-separated'],
    [`postgresql://app:${secret}@h:0/d`, 'port'],
    [`postgresql://app:${secret}@h:65536/d`, 'port'],
    [`postgresql://app:${secret}@h/d%ZZ`, 'database name'],
    [`postgresql://app:${secret}%G1@h/d`, 'password'],
    [`postgresql://app:${secret}%00@h/d`, '%00'],
    [`postgresql://app:${secret}@h/%FF%FE`, 'not valid UTF-8'],
    [`postgresql://app:${secret}@h/d?${secret}`, 'A query parameter'],
    [`postgresql://app:${secret}@h/d?x${secret}=1`, 'a query parameter'],
    [`postgresql://app:${secret}@[::1/d`, 'IPv6'],
    [`postgresql://app:${secret}@h/`, 'must name a database'],
    [`postgresql://app:${secret}@h/?dbname=`, 'must name a database'],
    [`POSTGRESQL://app:${secret}@h/d`, 'postgresql://'],
    [` postgresql://app:${secret}@h/d`, 'postgresql://'],
  ])('%s is refused: %s', (dsn, why) => {
    const err = refusal(dsn);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(why);
    expect(`${err.message} ${err.details.hint ?? ''} ${JSON.stringify(err)}`).not.toContain(secret);
  });

  it('refuses a host list from PGHOST too, and a bad PGPORT when it applies', () => {
    expect(refusal('postgresql:///d', { PGHOST: 'a,b' }).message).toContain('PGHOST');
    expect(refusal('postgresql:///d', { PGPORT: 'abc' }).details.hint).toContain('PGPORT');
    expect(parseTarget('postgresql://h:5433/d', { PGPORT: 'abc' }).port).toBe(5433);
  });
});

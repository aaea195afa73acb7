import { describe, expect, it } from 'vitest';
import { parseTarget, redactedDsn } from '../../src/restore/target/target.js';
import { SecretScrubber } from '../../src/secrets.js';

describe('target DSN parsing and redaction', () => {
  const env = { PGUSER: undefined, PGHOST: undefined, PGPORT: undefined };

  it.each([
    ['postgresql://app:s3cr%3At@db.example.com:6543/orders?sslmode=require', 'postgresql://app@db.example.com:6543/orders', 's3cr:t'],
    ['postgres://app@localhost/restored', 'postgresql://app@localhost:5432/restored', undefined],
    ['postgresql://us%40er:p%40ss@[::1]:5433/d', 'postgresql://us%40er@[::1]:5433/d', 'p@ss'],
    ['postgresql://app@/mydb?host=/var/run/postgresql', 'postgresql://app@%2Fvar%2Frun%2Fpostgresql:5432/mydb', undefined],
  ])('%s redacts to %s', (dsn, redacted, password) => {
    const t = parseTarget(dsn, env);
    expect(redactedDsn(t)).toBe(redacted);
    expect(t.password).toBe(password);
    if (password) expect(redactedDsn(t)).not.toContain(password);
  });

  it('passes sslmode on to libpq and drops every query parameter from the redacted form', () => {
    const t = parseTarget('postgresql://app:pw@h:5432/db?sslmode=verify-full&application_name=x', env);
    expect(t.params).toMatchObject({ PGSSLMODE: 'verify-full', PGAPPNAME: 'x' });
    expect(redactedDsn(t)).toBe('postgresql://app@h:5432/db');
  });

  it('takes user, host and port defaults from the libpq environment', () => {
    const t = parseTarget('postgresql:///db', { PGUSER: 'ops', PGHOST: 'pg.internal', PGPORT: '6000' });
    expect(redactedDsn(t)).toBe('postgresql://ops@pg.internal:6000/db');
  });

  it.each([
    ['host=localhost dbname=x password=hunter2', 'must be a postgresql://'],
    ['postgresql://app:hunter2@localhost:99999/db', 'port'],
    ['postgresql://app:hunter2@localhost:5432', 'must name a database'],
    // pg-connection-string said "could not be parsed"; libpq reads "abc" as the port, and so does svc.
    ['postgresql://app:hunter2@host:abc/db', 'port'],
  ])('rejects %s without echoing the password', (dsn, message) => {
    let error: Error | undefined;
    try {
      parseTarget(dsn, env);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toContain(message);
    expect(JSON.stringify(error)).not.toContain('hunter2');
    expect(error?.message).not.toContain('hunter2');
  });
});

describe('SecretScrubber', () => {
  it('removes known secrets, presigned query strings and URL passwords but keeps user names', () => {
    const s = new SecretScrubber();
    s.add('svc_tok_0123456789');
    s.add('https://bucket.s3.amazonaws.com/a/b.dump?X-Amz-Signature=abc123&X-Amz-Expires=900');
    const out = s.scrub(
      'token svc_tok_0123456789 url https://bucket.s3.amazonaws.com/a/b.dump?X-Amz-Signature=abc123&X-Amz-Expires=900 ' +
        'other https://x.example/y?sig=zzz dsn postgresql://app:pw@h/db and postgresql://app@h:5432/db',
    );
    expect(out).not.toContain('svc_tok_0123456789');
    expect(out).not.toContain('abc123');
    expect(out).not.toContain('sig=zzz');
    expect(out).not.toContain(':pw@');
    expect(out).toContain('postgresql://app@h:5432/db');
  });
});

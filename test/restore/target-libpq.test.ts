import { chmod, chown, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalToolError, UsageError } from '../../src/errors.js';
import { targetStateAfter } from '../../src/restore/failure.js';
import { RunScope } from '../../src/restore/scope.js';
import { inspectTarget } from '../../src/restore/target/target-database.js';
import { parseTarget } from '../../src/restore/target/target.js';
import { SecretScrubber } from '../../src/secrets.js';
import { pgSkipReason, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { listenOnLoopback } from '../support/ports.js';

/**
 * svc's reading of --target against psql's own, on a real PostgreSQL 15 server with SSL (a private
 * CA, a server certificate for localhost and 127.0.0.1, and a client certificate). Each row runs
 *   psql "$URI" -X -A -t -w -c SQL              (libpq reading the URI itself)
 *   psql -X -A -t -w -c SQL                     (no URI: the environment svc gives its children)
 * and both must print the same (same database, port, setting) or fail with the same message.
 * Both use the cluster's own psql binary, not Debian's pg_wrapper, so libpq alone does the reading.
 */

const skip = pgSkipReason();
if (skip) console.warn(`test/restore/target-libpq.test.ts skipped: ${skip}`);

const WHERE = 'select current_database(), inet_server_port()';
const SSL = 'select ssl, version, client_dn from pg_stat_ssl where pid = pg_backend_pid()';
/** Roles with awkward passwords: URI-reserved characters, non-ASCII, a newline, a trailing CR. */
const AWKWARD_ROLE = "o'brien #1";
const AWKWARD_PASSWORD = 'p@ss:w/rd?#%&= ü\\';
const NEWLINE_ROLE = 'nl_user';
const NEWLINE_PASSWORD = 'line1\nline2';
const CR_ROLE = 'cr_user';
const CR_PASSWORD = 'ends-in-cr\r';
const DATABASES = ['sales#2024', 'with space', "o'quote", 'café ü', '50%off', 'a+b', 'read_only_db'];

type Outcome = { ok: string } | { fails: RegExp } | { refused: string };

interface Row {
  name: string;
  /** The URI; `{P}` is the cluster's port, `{PW}` the encoded superuser password, `{S}` the encoded socket dir, `{D}` the cert dir. */
  uri: string;
  sql?: string;
  /** Extra environment for both psql runs (the user's own PG* variables). */
  env?: Record<string, string>;
  /** What svc's child environment must hold for this row (undefined: must be absent). */
  childEnv?: Record<string, string | undefined>;
  expect: Outcome;
  /** What psql does with a URI svc refuses. */
  psql?: Outcome;
}

const enc = encodeURIComponent;

const ROWS: Row[] = [
  // Percent-decoding of the database, once.
  { name: 'database sales%232024', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/sales%232024', expect: { ok: 'sales#2024|{P}' } },
  { name: 'database sales#2024 (no fragment in libpq)', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/sales#2024', expect: { ok: 'sales#2024|{P}' } },
  { name: 'database with%20space', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/with%20space', expect: { ok: 'with space|{P}' } },
  { name: "database o'quote, literal", uri: "postgresql://postgres:{PW}@127.0.0.1:{P}/o'quote", expect: { ok: "o'quote|{P}" } },
  { name: 'database o%27quote', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/o%27quote', expect: { ok: "o'quote|{P}" } },
  { name: 'database caf%C3%A9%20%C3%BC', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/caf%C3%A9%20%C3%BC', expect: { ok: 'café ü|{P}' } },
  { name: 'database 50%25off', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/50%25off', expect: { ok: '50%off|{P}' } },
  { name: "database a+b ('+' is no space)", uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/a+b', expect: { ok: 'a+b|{P}' } },
  { name: 'database from ?dbname=', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?dbname=sales%232024', expect: { ok: 'sales#2024|{P}' } },
  {
    name: 'missing database %2523 (decoded once: "%23")',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/sales%25232024',
    expect: { fails: /database "sales%232024" does not exist/ },
  },
  // User and password decoding.
  {
    name: 'user and password percent-encoded',
    uri: `postgresql://${enc(AWKWARD_ROLE)}:${enc(AWKWARD_PASSWORD)}@127.0.0.1:{P}/postgres`,
    sql: 'select current_user',
    expect: { ok: AWKWARD_ROLE },
  },
  {
    name: 'user and password from the query',
    uri: 'postgresql://nobody:wrong@127.0.0.1:{P}/postgres?user=postgres&password={PW}',
    sql: 'select current_user',
    expect: { ok: 'postgres' },
  },
  {
    name: 'password from PGPASSWORD',
    uri: 'postgresql://postgres@127.0.0.1:{P}/postgres',
    env: { PGPASSWORD: '{RAWPW}' },
    sql: 'select current_user',
    expect: { ok: 'postgres' },
  },
  {
    name: 'newline in the password (child gets PGPASSWORD)',
    uri: `postgresql://${NEWLINE_ROLE}:${enc(NEWLINE_PASSWORD)}@127.0.0.1:{P}/postgres`,
    sql: 'select current_user',
    childEnv: { PGPASSWORD: NEWLINE_PASSWORD, PGPASSFILE: undefined },
    expect: { ok: NEWLINE_ROLE },
  },
  {
    name: 'trailing CR in the password (child gets PGPASSWORD)',
    uri: `postgresql://${CR_ROLE}:${enc(CR_PASSWORD)}@127.0.0.1:{P}/postgres`,
    sql: 'select current_user',
    childEnv: { PGPASSWORD: CR_PASSWORD, PGPASSFILE: undefined },
    expect: { ok: CR_ROLE },
  },
  {
    name: 'wrong password',
    uri: 'postgresql://postgres:wrong@127.0.0.1:{P}/postgres',
    expect: { fails: /password authentication failed for user "postgres"/ },
  },
  {
    name: 'passfile',
    uri: 'postgresql://postgres@127.0.0.1:{P}/postgres?passfile={D}%2Fpgpass',
    childEnv: { PGPASSFILE: '{RAWD}/pgpass' },
    sql: 'select current_user',
    expect: { ok: 'postgres' },
  },
  {
    name: 'URI password wins over passfile',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?passfile={D}%2Fwrong-pgpass',
    sql: 'select current_user',
    expect: { ok: 'postgres' },
  },
  // Host, port, socket.
  {
    name: 'socket dir as ?host=',
    uri: 'postgresql://postgres:{PW}@/sales%232024?host={S}&port={P}',
    childEnv: { PGHOST: '{RAWS}' },
    expect: { ok: 'sales#2024|' },
  },
  { name: 'socket dir as percent-encoded host', uri: 'postgresql://postgres:{PW}@{S}:{P}/sales%232024', expect: { ok: 'sales#2024|' } },
  {
    name: "no host: the user's PGHOST (a socket dir)",
    uri: 'postgresql://postgres:{PW}@/sales%232024',
    env: { PGHOST: '{RAWS}', PGPORT: '{P}' },
    childEnv: { PGHOST: '{RAWS}', PGPORT: '{P}' },
    expect: { ok: 'sales#2024|' },
  },
  { name: 'no host: the user PGHOST (TCP)', uri: 'postgresql://postgres:{PW}@:{P}/postgres', env: { PGHOST: '127.0.0.1' }, expect: { ok: 'postgres|{P}' } },
  {
    name: 'no host, no PGHOST: libpq default socket',
    uri: 'postgresql://postgres:{PW}@:{P}/postgres',
    childEnv: { PGHOST: undefined },
    expect: { fails: /on socket ".*\/\.s\.PGSQL\.{P}" failed/ },
  },
  {
    name: 'postgresql:///db: libpq default socket',
    uri: 'postgresql:///postgres?port={P}',
    env: { PGPASSWORD: '{RAWPW}' },
    childEnv: { PGHOST: undefined },
    expect: { fails: /on socket ".*\/\.s\.PGSQL\.{P}" failed/ },
  },
  {
    name: 'empty ?host= hides the user PGHOST',
    uri: 'postgresql://postgres:{PW}@/postgres?host=&port={P}',
    env: { PGHOST: '127.0.0.1' },
    childEnv: { PGHOST: '' },
    expect: { fails: /on socket ".*\/\.s\.PGSQL\.{P}" failed/ },
  },
  { name: 'port from PGPORT', uri: 'postgresql://postgres:{PW}@127.0.0.1/postgres', env: { PGPORT: '{P}' }, expect: { ok: 'postgres|{P}' } },
  {
    name: 'hostaddr with a host name',
    uri: 'postgresql://postgres:{PW}@localhost:{P}/postgres?hostaddr=127.0.0.1',
    childEnv: { PGHOSTADDR: '127.0.0.1' },
    expect: { ok: 'postgres|{P}' },
  },
  { name: 'hostaddr without a host is TCP', uri: 'postgresql://postgres:{PW}@/postgres?hostaddr=127.0.0.1&port={P}', expect: { ok: 'postgres|{P}' } },
  { name: 'IPv6 [::1] (the server listens on 127.0.0.1 only)', uri: 'postgresql://postgres:{PW}@[::1]:{P}/postgres', expect: { fails: /::1/ } },
  // SSL and channel binding.
  { name: 'sslmode=disable', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=disable', sql: SSL, expect: { ok: 'f||' } },
  {
    name: 'sslmode=require',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=require&sslmode=disable&sslmode=require',
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'ssl=true (JDBC spelling of sslmode=require)',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?ssl=true',
    childEnv: { PGSSLMODE: 'require' },
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'requiressl=1 then sslmode=disable',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?requiressl=1&sslmode=disable',
    sql: SSL,
    expect: { ok: 'f||' },
  },
  {
    name: 'sslmode=verify-ca with sslrootcert',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=verify-ca&sslrootcert={D}%2Fca.crt',
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'sslmode=verify-ca without a root certificate',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=verify-ca',
    expect: { fails: /root certificate file ".*root\.crt" does not exist/ },
  },
  {
    name: 'sslmode=verify-full, name in the certificate',
    uri: 'postgresql://postgres:{PW}@localhost:{P}/postgres?sslmode=verify-full&sslrootcert={D}%2Fca.crt&hostaddr=127.0.0.1',
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'sslmode=verify-full, name not in the certificate',
    uri: 'postgresql://postgres:{PW}@wrong.example:{P}/postgres?sslmode=verify-full&sslrootcert={D}%2Fca.crt&hostaddr=127.0.0.1',
    expect: { fails: /does not match host name "wrong\.example"/ },
  },
  {
    name: 'sslcert and sslkey (client certificate)',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslcert={D}%2Fclient.crt&sslkey={D}%2Fclient.key',
    sql: SSL,
    expect: { ok: 't|TLSv1.3|/CN=svc-test-client' },
  },
  {
    name: 'sslcrl, nothing revoked',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=verify-ca&sslrootcert={D}%2Fca.crt&sslcrl={D}%2Fempty.crl',
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'sslcrl revoking the server certificate',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=verify-ca&sslrootcert={D}%2Fca.crt&sslcrl={D}%2Frevoked.crl',
    expect: { fails: /SSL error: certificate verify failed/ },
  },
  {
    name: 'sslcrldir, nothing revoked',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=verify-ca&sslrootcert={D}%2Fca.crt&sslcrldir={D}%2Fcrl%20dir',
    childEnv: { PGSSLCRLDIR: '{RAWD}/crl dir' },
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'sslcrldir revoking the server certificate',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=verify-ca&sslrootcert={D}%2Fca.crt&sslcrldir={D}%2Frevoked%20crl%20dir',
    expect: { fails: /SSL error: certificate verify failed/ },
  },
  { name: 'sslsni=0', uri: 'postgresql://postgres:{PW}@localhost:{P}/postgres?sslsni=0', childEnv: { PGSSLSNI: '0' }, sql: SSL, expect: { ok: 't|TLSv1.3|' } },
  {
    name: 'sslcompression=1',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslcompression=1',
    childEnv: { PGSSLCOMPRESSION: '1' },
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'ssl_max_protocol_version=TLSv1.2',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?ssl_max_protocol_version=TLSv1.2',
    sql: SSL,
    expect: { ok: 't|TLSv1.2|' },
  },
  {
    name: 'ssl_min_protocol_version=TLSv1.3',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?ssl_min_protocol_version=TLSv1.3&ssl_max_protocol_version=TLSv1.3',
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'channel_binding=require over SSL (SCRAM-SHA-256-PLUS)',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?channel_binding=require',
    childEnv: { PGCHANNELBINDING: 'require' },
    sql: SSL,
    expect: { ok: 't|TLSv1.3|' },
  },
  {
    name: 'channel_binding=require without SSL',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?channel_binding=require&sslmode=disable',
    expect: { fails: /channel binding required/ },
  },
  {
    name: 'gssencmode=disable',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?gssencmode=disable',
    childEnv: { PGGSSENCMODE: 'disable' },
    expect: { ok: 'postgres|{P}' },
  },
  { name: 'gssencmode=require', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?gssencmode=require', expect: { fails: /GSSAPI/ } },
  {
    name: 'krbsrvname',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?krbsrvname=pgsvc',
    childEnv: { PGKRBSRVNAME: 'pgsvc' },
    expect: { ok: 'postgres|{P}' },
  },
  { name: 'gsslib', uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?gsslib=gssapi', childEnv: { PGGSSLIB: 'gssapi' }, expect: { ok: 'postgres|{P}' } },
  {
    name: 'requirepeer = the server user (socket)',
    uri: 'postgresql://postgres:{PW}@{S}:{P}/postgres?requirepeer={PEER}',
    childEnv: { PGREQUIREPEER: '{PEER}' },
    expect: { ok: 'postgres|' },
  },
  {
    name: 'requirepeer = someone else (socket)',
    uri: 'postgresql://postgres:{PW}@{S}:{P}/postgres?requirepeer=nobody',
    expect: { fails: /requirepeer specifies "nobody"/ },
  },
  // Session settings the server shows.
  {
    name: 'application_name',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?application_name=svc%20restore%20%231',
    sql: 'show application_name',
    expect: { ok: 'svc restore #1' },
  },
  {
    name: 'options (-c search_path)',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?options=-c%20search_path%3Dsales%2Cpublic',
    sql: 'show search_path',
    expect: { ok: 'sales,public' },
  },
  {
    name: 'client_encoding',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?client_encoding=LATIN1',
    sql: 'show client_encoding',
    expect: { ok: 'LATIN1' },
  },
  {
    name: 'connect_timeout against a server that never answers',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{SILENT}/postgres?connect_timeout=2',
    childEnv: { PGCONNECT_TIMEOUT: '2' },
    expect: { fails: /timeout expired/ },
  },
  {
    name: 'target_session_attrs=read-write, writable',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?target_session_attrs=read-write',
    expect: { ok: 'postgres|{P}' },
  },
  {
    name: 'target_session_attrs=read-write, read-only database',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/read_only_db?target_session_attrs=read-write',
    expect: { fails: /session is read-only/ },
  },
  {
    name: 'target_session_attrs=read-only, read-only database',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/read_only_db?target_session_attrs=read-only',
    expect: { ok: 'read_only_db|{P}' },
  },
  {
    name: 'target_session_attrs=standby, a primary',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?target_session_attrs=standby',
    expect: { fails: /server is not in hot standby mode/ },
  },
  // Parameters svc refuses: psql accepts or refuses them on its own.
  {
    name: 'keepalives',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?keepalives=1',
    expect: { refused: 'keepalives' },
    psql: { ok: 'postgres|{P}' },
  },
  {
    name: 'fallback_application_name',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?fallback_application_name=x',
    expect: { refused: 'fallback_application_name' },
    psql: { ok: 'postgres|{P}' },
  },
  {
    name: 'tcp_user_timeout',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?tcp_user_timeout=1000',
    expect: { refused: 'tcp_user_timeout' },
    psql: { ok: 'postgres|{P}' },
  },
  {
    name: 'sslpassword',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslpassword=x',
    expect: { refused: 'sslpassword' },
    psql: { ok: 'postgres|{P}' },
  },
  {
    name: 'service',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?service=nosuch',
    expect: { refused: 'service' },
    psql: { fails: /definition of service "nosuch" not found/ },
  },
  {
    name: 'require_auth (libpq 16)',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?require_auth=scram-sha-256',
    expect: { refused: 'require_auth' },
    psql: { fails: /invalid URI query parameter: "require_auth"/ },
  },
  {
    name: 'unknown parameter',
    uri: 'postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?foo=1',
    expect: { refused: 'foo' },
    psql: { fails: /invalid URI query parameter: "foo"/ },
  },
];

describe.skipIf(!!skip)('svc reads --target as psql does, against a real PostgreSQL 15', () => {
  let cluster: PgCluster;
  let base: Record<string, string>;
  let psqlBin: string;
  let work: string;
  let socketDir: string;
  let certDir: string;
  let silent: Server;
  let silentPort: number;
  const held: Socket[] = [];
  const peer = process.getuid?.() === 0 ? 'postgres' : userInfo().username;

  async function openssl(...args: string[]): Promise<void> {
    await execa('openssl', args, { cwd: certDir, stdin: 'ignore' });
  }

  /** A private CA; a server certificate for localhost and 127.0.0.1; a client one; a CRL revoking the server's. */
  async function makeCertificates(): Promise<void> {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    await writeFile(join(certDir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    await writeFile(
      join(certDir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = test',
        '[test]',
        `dir = ${certDir}`,
        'database = $dir/index.txt',
        'crlnumber = $dir/crlnumber',
        'default_md = sha256',
        'default_crl_days = 2',
        '',
      ].join('\n'),
    );
    await writeFile(join(certDir, 'index.txt'), '');
    await writeFile(join(certDir, 'crlnumber'), '01\n');
    await openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=svc-test-ca');
    await openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    await openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    );
    await openssl('req', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=svc-test-client');
    await openssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2');
    const ca = ['-config', 'ca.cnf', '-keyfile', 'ca.key', '-cert', 'ca.crt'];
    await openssl('ca', ...ca, '-gencrl', '-out', 'empty.crl');
    await openssl('ca', ...ca, '-revoke', 'server.crt');
    await openssl('ca', ...ca, '-gencrl', '-out', 'revoked.crl');
    // CRL directories as OpenSSL looks them up: <issuer hash>.r0.
    const { stdout: hash } = await execa('openssl', ['crl', '-hash', '-noout', '-in', join(certDir, 'empty.crl')]);
    for (const [dir, crl] of [
      ['crl dir', 'empty.crl'],
      ['revoked crl dir', 'revoked.crl'],
    ] as const) {
      await mkdir(join(certDir, dir));
      await copyFile(join(certDir, crl), join(certDir, dir, `${hash.trim()}.r0`));
    }
    for (const key of ['server.key', 'client.key', 'ca.key']) await chmod(join(certDir, key), 0o600);
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-target-libpq-'));
    certDir = join(work, 'certs');
    await mkdir(certDir);
    await makeCertificates();
    // The server reads its key and certificates as postgres; the client files stay ours (libpq checks the key's owner and mode).
    const serverDir = join(work, 'server-certs');
    await mkdir(serverDir);
    for (const f of ['server.crt', 'server.key', 'ca.crt']) await copyFile(join(certDir, f), join(serverDir, f));
    if (process.getuid?.() === 0) {
      const uid = Number((await execa('id', ['-u', 'postgres'])).stdout.trim());
      const gid = Number((await execa('id', ['-g', 'postgres'])).stdout.trim());
      await chmod(work, 0o755);
      await chown(serverDir, uid, gid);
      for (const f of ['server.crt', 'server.key', 'ca.crt']) await chown(join(serverDir, f), uid, gid);
    }
    cluster = await startCluster({
      settings: {
        ssl: 'on',
        ssl_cert_file: join(serverDir, 'server.crt'),
        ssl_key_file: join(serverDir, 'server.key'),
        ssl_ca_file: join(serverDir, 'ca.crt'), // asks for (but does not require) a client certificate
      },
    });
    socketDir = dirname(cluster.dataDir);
    psqlBin = join(cluster.binDir, 'psql');
    const q = (id: string) => `"${id.replaceAll('"', '""')}"`;
    const lit = (s: string) => `E'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n').replaceAll('\r', '\\r')}'`;
    for (const db of DATABASES) await cluster.psql(`CREATE DATABASE ${q(db)};`);
    await cluster.psql(
      [
        'ALTER DATABASE read_only_db SET default_transaction_read_only = on;',
        `CREATE ROLE ${q(AWKWARD_ROLE)} LOGIN PASSWORD ${lit(AWKWARD_PASSWORD)};`,
        `CREATE ROLE ${NEWLINE_ROLE} LOGIN PASSWORD ${lit(NEWLINE_PASSWORD)};`,
        `CREATE ROLE ${CR_ROLE} LOGIN PASSWORD ${lit(CR_PASSWORD)};`,
      ].join('\n'),
    );
    await writeFile(join(certDir, 'pgpass'), `*:*:*:postgres:${cluster.password}\n`, { mode: 0o600 });
    await writeFile(join(certDir, 'wrong-pgpass'), '*:*:*:postgres:wrong\n', { mode: 0o600 });

    // A TCP server that accepts and never answers: only connect_timeout ends the wait.
    silent = createServer((socket) => held.push(socket));
    silentPort = await listenOnLoopback(silent);

    const home = join(work, 'home'); // no ~/.pgpass, no ~/.postgresql/root.crt or postgresql.crt
    await mkdir(home);
    base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LC_ALL: 'C', LANG: 'C' };
  }, 120_000);

  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
    await cluster?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  function fill(text: string): string {
    return text
      .replaceAll('{PW}', enc(cluster.password))
      .replaceAll('{RAWPW}', cluster.password)
      .replaceAll('{P}', String(cluster.port))
      .replaceAll('{SILENT}', String(silentPort))
      .replaceAll('{S}', enc(socketDir))
      .replaceAll('{RAWS}', socketDir)
      .replaceAll('{D}', enc(certDir))
      .replaceAll('{RAWD}', certDir)
      .replaceAll('{PEER}', peer);
  }

  const run = (args: string[], env: Record<string, string | undefined>) =>
    execa(psqlBin, args, { env, extendEnv: false, reject: false, stdin: 'ignore', timeout: 30_000 });

  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const uri = fill(row.uri);
    const sql = row.sql ?? WHERE;
    const env = { ...base, ...Object.fromEntries(Object.entries(row.env ?? {}).map(([k, v]) => [k, fill(v)])) };
    const viaUri = await run([uri, '-X', '-A', '-t', '-w', '-c', sql], env);
    const check = (outcome: Outcome, r: { exitCode?: number; stdout: string; stderr: string }) => {
      if ('ok' in outcome) {
        expect(r.stderr).toBe('');
        expect(r.stdout).toBe(fill(outcome.ok));
        expect(r.exitCode).toBe(0);
      } else if ('fails' in outcome) {
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toMatch(new RegExp(fill(outcome.fails.source)));
      }
    };

    if ('refused' in row.expect) {
      check(row.psql!, viaUri);
      let error: unknown;
      try {
        parseTarget(uri, env);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as UsageError).message).toContain(`"${row.expect.refused}"`);
      expect((error as UsageError).message).not.toContain(cluster.password);
      expect((error as UsageError).message).not.toContain(enc(cluster.password));
      return;
    }

    check(row.expect, viaUri);
    const scope = new RunScope();
    try {
      const target = parseTarget(uri, env);
      const child = await scope.pgEnv(target, env);
      for (const [name, value] of Object.entries(row.childEnv ?? {})) expect(child[name], name).toBe(value === undefined ? undefined : fill(value));
      const viaEnv = await run(['-X', '-A', '-t', '-w', '-c', sql], child);
      // libpq names the passfile a rejected password came from: svc's own PGPASSFILE, by design.
      const stderr = viaEnv.stderr.replace(/\npassword retrieved from file ".*\/svc-pgpass-[^/]+\/pgpass"/g, '');
      expect({ code: viaEnv.exitCode, stdout: viaEnv.stdout, stderr }).toEqual({ code: viaUri.exitCode, stdout: viaUri.stdout, stderr: viaUri.stderr });
    } finally {
      await scope.dispose();
    }
  });

  it('svc own preflight says what is wrong when sslmode=verify-ca has no root certificate', async () => {
    const uri = fill('postgresql://postgres:{PW}@127.0.0.1:{P}/postgres?sslmode=verify-ca');
    const scope = new RunScope();
    try {
      const target = parseTarget(uri, base);
      const env = await scope.pgEnv(target, base);
      const err = await inspectTarget(target, 'in_place', env, new SecretScrubber(), new AbortController().signal).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LocalToolError);
      expect((err as Error).message).toContain(`Cannot connect to the target postgresql://postgres@127.0.0.1:${cluster.port}/postgres`);
      expect((err as Error).message).toMatch(/root certificate file ".*root\.crt" does not exist/);
      expect((err as Error).message).not.toContain(cluster.password);
    } finally {
      await scope.dispose();
    }
  });

  it.each([
    ['TCP', 'postgresql://postgres:{PW}@127.0.0.1:{P}/{DB}'],
    ['socket', 'postgresql://postgres:{PW}@{S}:{P}/{DB}'],
  ])('the dropdb hint, pasted into sh, drops the awkwardly named database (%s)', async (_kind, template) => {
    const name = `drop me 'now' #1 $(x) ü`;
    await cluster.psql(`CREATE DATABASE "${name}";`);
    const target = parseTarget(fill(template).replace('{DB}', enc(name)), base);
    const text = targetStateAfter('restore', {
      target,
      mode: 'new_database',
      jobs: 1,
      workDir: work,
      keepArtifact: false,
      confirm: false,
      interactive: false,
      connections: 8,
      analyze: true,
      receiptPath: undefined,
      keepPartial: false,
    });
    const command = /\((dropdb .*)\)\.$/s.exec(text)![1]!;
    expect(command).not.toContain(cluster.password);
    const r = await execa('/bin/sh', ['-c', command], {
      env: { ...base, PATH: `${cluster.binDir}:${base.PATH}`, PGPASSWORD: cluster.password },
      extendEnv: false,
      reject: false,
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(await cluster.psql(`SELECT count(*) FROM pg_database WHERE datname = '${name.replaceAll("'", "''")}';`)).toBe('0');
  });
});

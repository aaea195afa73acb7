/** A certificate authority made for one test run with openssl, and a server certificate for 127.0.0.1 it signed. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

export interface PrivateCa {
  dir: string;
  /** The CA certificate: what NODE_EXTRA_CA_CERTS points at. */
  caFile: string;
  certFile: string;
  keyFile: string;
}

export async function makePrivateCa(): Promise<PrivateCa> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ca-'));
  const p = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await execa('openssl', ['req', '-x509', ...ec, '-keyout', p('ca.key'), '-out', p('ca.pem'), '-days', '2', '-subj', '/CN=svc test CA'], { stdin: 'ignore' });
  await execa('openssl', ['req', ...ec, '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=127.0.0.1'], { stdin: 'ignore' });
  writeFileSync(p('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  await execa(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      p('server.csr'),
      '-CA',
      p('ca.pem'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-out',
      p('server.pem'),
      '-days',
      '2',
      '-extfile',
      p('server.ext'),
    ],
    { stdin: 'ignore' },
  );
  return { dir, caFile: p('ca.pem'), certFile: p('server.pem'), keyFile: p('server.key') };
}

import { expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';

it('an unreachable target is exit 9, a network failure (cli-contract 5), naming its redacted URI (a URI without a password is not a secret)', async () => {
  const r = await runCli(
    ['restore', 'create', '--backup', 'bj_0007', '--target', 'postgresql://app@127.0.0.1:1/orders_check', '--dry-run', '--base-url', 'http://127.0.0.1:9'],
    {
      env: { SVC_API_KEY: 'svc_test_preflight_0123456789', PATH: process.env.PATH, PGCONNECT_TIMEOUT: '2' },
    },
  );
  expect(r.code).toBe(9);
  expect(r.stderr).toContain('Cannot connect to the target postgresql://app@127.0.0.1:1/orders_check');
  expect(r.stderr).not.toContain('[redacted]');
});

it('with a password in the URI, the password never appears, and the argv warning is shown', async () => {
  const r = await runCli(
    [
      'restore',
      'create',
      '--backup',
      'bj_0007',
      '--target',
      'postgresql://app:Pa55-w0rd@127.0.0.1:1/orders_check',
      '--dry-run',
      '--base-url',
      'http://127.0.0.1:9',
    ],
    {
      env: { SVC_API_KEY: 'svc_test_preflight_0123456789', PATH: process.env.PATH, PGCONNECT_TIMEOUT: '2' },
    },
  );
  expect(r.code).toBe(9);
  expect(r.stderr).toContain('postgresql://app@127.0.0.1:1/orders_check');
  expect(r.stderr).toContain('visible to other local users');
  expect(r.stdout + r.stderr).not.toContain('Pa55-w0rd');
});

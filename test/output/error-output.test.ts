import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { ContractError, UsageError } from '../../src/errors.js';
import { writeError } from '../../src/output/error-output.js';
import { painter } from '../../src/ui/style.js';

function render(err: Parameters<typeof writeError>[1], json: boolean, width?: number): string {
  const out = new PassThrough();
  writeError(out, err, json, painter(false), width);
  return out.read()?.toString() ?? '';
}

it('a contract error without X-Request-ID still says so, and the JSON envelope always has requestId and status', () => {
  const err = new ContractError('The response of getDatabase does not match the API contract: database.state: Invalid option');
  expect(render(err, false)).toContain('request id: (none returned)');
  const envelope = JSON.parse(render(err, true));
  expect(envelope.error).toMatchObject({ code: 'contract_mismatch', requestId: null, status: null });
});

it('a local usage error has no request id line', () => {
  expect(render(new UsageError('Invalid --limit "0"'), false)).not.toContain('request id');
});

it('on a terminal the lines wrap at spaces under themselves; piped, each stays whole', () => {
  const err = new UsageError(
    'No service base URL is configured.',
    'Pass --base-url https://..., set SVC_BASE_URL, or run `svc auth login --base-url https://...` once.',
  );
  expect(render(err, false)).toBe(
    'error: No service base URL is configured.\n  Pass --base-url https://..., set SVC_BASE_URL, or run `svc auth login --base-url https://...` once.\n',
  );
  expect(render(err, false, 40)).toBe(
    [
      'error: No service base URL is',
      '  configured.',
      '  Pass --base-url https://..., set',
      '    SVC_BASE_URL, or run `svc auth login',
      '    --base-url https://...` once.',
      '',
    ].join('\n'),
  );
});

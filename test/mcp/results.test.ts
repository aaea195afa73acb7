import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { errorResult, MAX_RESULT_BYTES, okResult } from '../../src/mcp/results.js';
import { SecretScrubber } from '../../src/secrets.js';

const TOKEN = 'svc_test_0123456789abcdef';
const scrubber = () => {
  const s = new SecretScrubber();
  s.add(TOKEN);
  return s;
};

describe('tool results', () => {
  it('the JSON as structuredContent and compact text; a known secret echoed by the service is redacted in both', () => {
    const r = okResult({ databases: [{ id: 'db_1', name: `echo ${TOKEN}` }] }, scrubber());
    expect(r.structuredContent).toEqual({ databases: [{ id: 'db_1', name: 'echo [redacted]' }] });
    expect(r.content[0]!.text).toBe('{"databases":[{"id":"db_1","name":"echo [redacted]"}]}');
  });

  it(`no result exceeds ${MAX_RESULT_BYTES / 1024} KiB: a larger one is a tool error saying to ask for fewer items`, () => {
    const big = { databases: Array.from({ length: 3000 }, (_, i) => ({ id: `db_${i}`, note: 'x'.repeat(100) })) };
    const r = okResult(big, scrubber());
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(JSON.parse(r.content[0]!.text).error).toMatchObject({ code: 'response_too_large', nextAction: expect.stringContaining('smaller limit') });
  });

  it("an API error: the service's code, message, request id, status, and for 403 the required scope and next action", () => {
    const err = new ApiError(403, 'forbidden', 'This API key lacks the scope required for this operation.', {
      requestId: 'req_1',
      requiredScope: 'evidence:read',
      nextAction: 'Issue a token with evidence:read.',
    });
    expect(JSON.parse(errorResult(err, scrubber()).content[0]!.text)).toEqual({
      error: {
        code: 'forbidden',
        message: 'This API key lacks the scope required for this operation.',
        requestId: 'req_1',
        status: 403,
        requiredScope: 'evidence:read',
        nextAction: 'Issue a token with evidence:read.',
      },
    });
  });

  it('an unexpected failure never carries a secret', () => {
    const r = errorResult(new Error(`boom with ${TOKEN}`), scrubber());
    expect(r.content[0]!.text).not.toContain(TOKEN);
    expect(JSON.parse(r.content[0]!.text).error.code).toBe('unexpected');
  });
});

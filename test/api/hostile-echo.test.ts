/**
 * Issue 11, defect 5: a service that echoes secrets back. The token it was sent comes back in every
 * field of an error body and in X-Request-ID and the RateLimit headers; a restore job carries a
 * lock token and a presigned URL. Whatever svc prints (human, --json, --verbose; stdout and
 * stderr) holds neither the token nor its hex part, nor any presigned URL's signature.
 */
import { describe, expect, it } from 'vitest';
import { hostileService, svcAgainst } from '../support/hostile-cli.js';
import { echoingError, hexPart, restoreGot, restoresListed } from '../support/hostile-server.js';
import { json } from '../support/loopback-server.js';
import type { Secrets } from '../support/secret-scan.js';

const TOKEN = 'svc_live_686f7374696c656563686f00000000c3d4';
/** A lock token svc never received in this invocation (another run's), echoed by getRestore. */
const FOREIGN_LOCK = 'lk_0123456789abcdef0123456789abcdef';

const hostile = hostileService();

/**
 * The scan searches for the token whole and for its hex part alone. What is tested is what svc
 * prints, so most runs are in-process; `child` runs the built CLI, for what only a whole process
 * shows (anything written past the context's streams): each output mode once, and `restore get`.
 */
const svc = (args: string[], secrets: Secrets = {}, child = false) => svcAgainst(hostile, TOKEN, args, { secrets, inProcess: !child });

describe('an error that echoes the token in every field and header', () => {
  const modes = [
    ['human', []],
    ['--json', ['--json']],
    ['--verbose', ['--verbose']],
    ['--verbose --json', ['--verbose', '--json']],
  ] as const;
  const statuses = [
    [401, 3],
    [403, 4],
    [404, 5],
    [500, 9],
  ] as const;

  it.each(statuses.flatMap(([status, exit]) => modes.map(([mode, flags]) => [status, exit, mode, flags] as const)))(
    'HTTP %i (exit %i), %s: neither the token nor its hex part is printed',
    async (status, exit, mode, flags) => {
      hostile.api('GET', '/databases', echoingError(status));
      const r = await svc(['databases', 'list', '--max-retries', '1', ...flags], {}, status === 401);
      expect(r.code).toBe(exit);
      expect(hostile.requestsTo('/databases')).toHaveLength(status === 500 ? 2 : 1);
      expect(r.stdout).toBe('');
      for (const text of [r.stdout, r.stderr]) {
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain(hexPart(TOKEN));
      }
      // The error still reads as one, with the echoed parts redacted rather than dropped.
      if (mode.includes('--json')) {
        const envelope = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: Record<string, unknown> };
        expect(envelope.error).toMatchObject({
          code: 'invalid_key_[redacted]',
          message: 'The key [redacted] (…[redacted]) was refused; you sent "Bearer [redacted]".',
          requestId: '[redacted]',
          status,
        });
      } else {
        expect(r.stderr).toContain('error: The key [redacted] (…[redacted]) was refused; you sent "Bearer [redacted]".');
        expect(r.stderr).toContain('next action: Revoke Bearer [redacted] in Settings > API tokens.');
        expect(r.stderr).toContain('request id: [redacted]');
      }
      if (mode.includes('--verbose')) {
        expect(r.stderr).toMatch(
          new RegExp(
            `http GET /api/v1/databases ${status} \\d+ms request-id=\\[redacted\\] ratelimit-limit=\\[redacted\\] ratelimit-remaining=Bearer \\[redacted\\] ratelimit-reset=\\[redacted\\]`,
          ),
        );
      }
    },
  );
});

describe('a restore job echoing a lock token and a presigned URL this run never received', () => {
  const secrets = () => ({ presignedUrls: [hostile.presignedUrl()] });

  it('svc restore get: the key/value block shows the error without the URL signature', async () => {
    hostile.api('GET', '/restores/rj_0001', json(200, restoreGot({ lockToken: FOREIGN_LOCK, presignedS3Url: hostile.presignedUrl() })));
    const r = await svc(['restore', 'get', 'rj_0001'], secrets(), true);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/error: +download_failed: worker failed \(lock lk_\w+ from http:\/\/127\.0\.0\.1:\d+\/artifacts\/acme-orders\.pgdump\?/);
    expect(r.stdout).toContain('&X-Amz-Signature=[redacted])');
    expect(r.stdout).not.toContain(hostile.signature);
  });

  it('svc restore get --json: the document is exact but for the credential parameters of URLs in text and the secret fields', async () => {
    const body = restoreGot({ lockToken: FOREIGN_LOCK, presignedS3Url: hostile.presignedUrl() });
    hostile.api('GET', '/restores/rj_0001', json(200, body));
    const r = await svc(['restore', 'get', 'rj_0001', '--json'], secrets());
    expect(r.code).toBe(0);
    const redactedUrl = hostile.presignedUrl().replace(/(X-Amz-(?:Credential|Signature))=[^&]+/g, '$1=[redacted]');
    const expected = JSON.parse(JSON.stringify(body).replaceAll(hostile.presignedUrl(), redactedUrl)) as {
      restoreJob: { debug: { lockToken: string; presignedS3Url: string } };
    };
    // A field named lockToken or presignedS3Url holds a secret, whoever's: its value goes.
    expected.restoreJob.debug.lockToken = '[redacted]';
    expected.restoreJob.debug.presignedS3Url = '[redacted]';
    expect(JSON.parse(r.stdout)).toEqual(expected);
  });

  it.each([
    ['a restore job', '/restores/rj_0001', () => restoreGot({ presignedS3Url: hostile.presignedUrl() })],
    ['a list of restore jobs', '/restores', () => restoresListed({ presignedS3Url: hostile.presignedUrl() })],
  ])('svc api, piped (the body as received): %s keeps no signature', async (_what, path, body) => {
    hostile.api('GET', path, json(200, body()));
    const r = await svc(['api', path], secrets());
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(hostile.signature);
    expect(JSON.parse(r.stdout)).toBeTruthy();
  });
});

describe('--jq sees the document after its secrets are scrubbed by key (issue 17, item 6)', () => {
  const secrets = () => ({ lockTokens: [FOREIGN_LOCK], presignedUrls: [hostile.presignedUrl()] });
  const created = () => ({
    ...restoreGot({}),
    execution: {
      jobId: '3f0c8a52-4a8e-4a47-9f38-0e0b4a0d7c11',
      lockToken: FOREIGN_LOCK,
      presignedS3Url: hostile.presignedUrl(),
      manifestObjectKey: 'manifests/db_orders/bj_0007.json',
      expectedSizeBytes: 95129,
      expectedSha256: 'a'.repeat(64),
    },
  });

  it.each([
    ['.execution.lockToken', '[redacted]'],
    ['.execution.presignedS3Url', '[redacted]'],
    ['.execution | [.lockToken, .presignedS3Url] | join(" ")', '[redacted] [redacted]'],
    ['.execution | to_entries[] | select(.key == "lockToken") | .value', '[redacted]'],
    ['.execution.expectedSizeBytes', '95129'],
  ])('svc api POST /restores --jq %j prints %j', async (filter, printed) => {
    hostile.api('POST', '/restores', json(202, created()));
    const r = await svc(
      [
        'api',
        '/restores',
        '-f',
        'backupJobId=bj_0007',
        '-f',
        'targetRedactedDsn=postgresql://app@db/x',
        '-f',
        'mode=new_database',
        '-f',
        'confirmDestructive=false',
        '--jq',
        filter,
      ],
      secrets(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${printed}\n`);
  });

  it('svc restore get --jq: a lock token field of the job is gone before jq runs', async () => {
    hostile.api('GET', '/restores/rj_0001', json(200, restoreGot({ lockToken: FOREIGN_LOCK, presignedS3Url: hostile.presignedUrl() })));
    const r = await svc(['restore', 'get', 'rj_0001', '--jq', '.restoreJob.debug | [.lockToken, .presignedS3Url] | join(" ")'], {
      presignedUrls: [hostile.presignedUrl()],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('[redacted] [redacted]\n');
  });
});

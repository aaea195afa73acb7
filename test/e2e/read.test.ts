/**
 * Every read command of cli-contract 3, human and --json, run in-process (run(argv, ctx), no process
 * boundary is under test here) against the sandbox over real HTTP; then the exit codes the sandbox
 * produces for reads (2, 3, 4, 5, 8, 9).
 * The runs are independent (nothing here changes the sandbox), so they run concurrently.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cleanupE2e, closedPort, errorEnvelope, REQUEST_ID_LINE, startE2eSandbox, svcInProcess as svc, type E2eSandbox } from './helpers.js';

let sb: E2eSandbox;
const ARTIFACT_SHA = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';

beforeAll(async () => {
  sb = await startE2eSandbox();
});

afterAll(async () => {
  await sb?.stop();
  cleanupE2e();
});

interface ReadCase {
  argv: string[];
  /** Human output: every pattern must match stdout. */
  human: (string | RegExp)[];
  /** What must be on stderr, and not on stdout: caveats and glossaries. */
  notes?: (string | RegExp)[];
  /** --json output: checks on the parsed document. */
  json: (doc: any) => void;
}

const NOT_PROOF = 'A completed backup is not proof of recoverability';

const cases: ReadCase[] = [
  {
    argv: ['profile'],
    human: [
      /api key id: +key_cli_01/,
      /organization: +acme \(org_acme\)/,
      /scopes: +databases:read, destinations:read, backups:trigger/,
      /expires: +\d{4}-.*\(in \d+d\)/,
    ],
    json: (d) => expect(d.profile).toMatchObject({ apiKeyId: 'key_cli_01', organizationSlug: 'acme', clientKind: 'cli' }),
  },
  {
    argv: ['databases', 'list'],
    human: [/^ID +NAME +PROVIDER +STATE/m, /^db_orders +orders-prod +neon +active/m, /^db_billing +billing +rds +degraded/m],
    json: (d) => {
      expect(d.databases.map((x: { id: string }) => x.id)).toEqual(['db_orders', 'db_billing']);
      expect(d.nextCursor).toEqual(expect.any(String));
    },
  },
  {
    argv: ['databases', 'list', '--all', '--limit', '1'],
    human: [/^db_orders /m, /^db_billing /m, /^db_analytics +analytics +supabase +paused .* never$/m],
    json: (d) => {
      expect(d.databases.map((x: { id: string }) => x.id)).toEqual(['db_orders', 'db_billing', 'db_analytics']);
      expect(d).not.toHaveProperty('nextCursor');
    },
  },
  {
    argv: ['databases', 'get', 'db_orders'],
    human: [/^name: +orders-prod$/m, /^backup schedule: +0 \*\/6 \* \* \* \(UTC\)$/m, /^retention: +30 days$/m],
    notes: [NOT_PROOF],
    json: (d) => expect(d.database).toMatchObject({ id: 'db_orders', provider: 'neon', state: 'active' }),
  },
  {
    argv: ['destinations', 'list'],
    human: [/^ID +KIND +REGION +BUCKET/m, /^dst_eu_s3 +aws_s3 +eu-central-1 +acme-backups-eu +verified/m, /^dst_b2 +backblaze_b2 .* never$/m],
    json: (d) => expect(d.destinations.map((x: { id: string }) => x.id)).toEqual(['dst_eu_s3', 'dst_b2']),
  },
  {
    argv: ['destinations', 'get', 'dst_eu_s3'],
    human: [/^kind: +aws_s3$/m, /^bucket ARN: +arn:aws:s3:::acme-backups-eu$/m, /^retention floor: +30 days$/m],
    json: (d) => expect(d.destination).toMatchObject({ id: 'dst_eu_s3', state: 'verified', retentionFloorDays: 30 }),
  },
  {
    argv: ['backups', 'list', 'db_orders', '--all'],
    human: [/^bj_0006 +failed_terminal/m, /^bj_0007 +completed +scheduled/m, /^bj_0009 +queued .* -$/m],
    notes: [NOT_PROOF],
    json: (d) => expect(d.backupJobs.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining(['bj_0006', 'bj_0007', 'bj_0008', 'bj_0009'])),
  },
  {
    argv: ['backups', 'get', 'bj_0007'],
    human: [/^state: +completed$/m, /^Artifact$/m, /^ {2}size: +92\.9 KiB \(95129 bytes\)$/m, `sha-256:   ${ARTIFACT_SHA}`],
    notes: [NOT_PROOF],
    json: (d) => expect(d).toMatchObject({ id: 'bj_0007', state: 'completed', artifact: { sizeBytes: 95129, checksumSha256: ARTIFACT_SHA } }),
  },
  {
    argv: ['evidence', 'list', '--database', 'db_orders'],
    // Piped, the whole checksum: `svc evidence list | grep <sha256>` finds it.
    human: [/^BACKUP JOB +SIZE +SHA-256/m, new RegExp(`^bj_0007 +92\\.9 KiB +${ARTIFACT_SHA} .* passed +2$`, 'm')],
    notes: [/^What the proof terms mean \(from the service\):$/m],
    json: (d) => {
      expect(d.evidence.map((e: { backupJobId: string }) => e.backupJobId)).toEqual(['bj_0007']);
      expect(d.proofSemantics.completedBackup).toMatch(/does not prove/);
    },
  },
  {
    argv: ['evidence', 'get', 'bj_0007'],
    human: [/^Integrity verification\n {2}result: +passed$/m, /^integrity\.verified +2026-11-21T06:05:00Z/m],
    notes: [/proven recoverability: +A verified restore exists/],
    json: (d) => expect(d.evidence).toMatchObject({ backupJobId: 'bj_0007', checksumSha256: ARTIFACT_SHA, integrityVerification: { result: 'passed' } }),
  },
  {
    argv: ['restore', 'get', 'rj_0001'],
    human: [/^state: +completed$/m, /^proof: verified restore: +yes$/m, /^proof: proven recoverability: +no$/m],
    json: (d) => expect(d.restoreJob).toMatchObject({ id: 'rj_0001', state: 'completed', proof: { verifiedRestore: true, provenRecoverability: false } }),
  },
  {
    argv: ['recovery', 'summary', 'db_orders'],
    human: [/^summary: +A verified recovery window exists\.$/m, /^Latest recovery window$/m, /^ {2}window: +rw_0003$/m, /^ {2}proof status: +verified$/m],
    notes: [/^ {2}svc restore create --window rw_0003 --target postgresql:\/\/USER@HOST:5432\/NEW_DATABASE$/m],
    json: (d) => expect(d).toMatchObject({ databaseId: 'db_orders', latest: { windowId: 'rw_0003', proofStatus: 'verified' } }),
  },
  {
    argv: ['recovery', 'candidate', 'db_orders', '--incident-time', '2026-11-21T10:00:00Z'],
    human: [/^incident time: +2026-11-21T10:00:00Z/m, /^Recommended candidate$/m, /^ {2}gap before incident: +0s$/m],
    notes: [/^ {2}svc restore create --window rw_0003 --target postgresql:\/\/USER@HOST:5432\/NEW_DATABASE$/m],
    json: (d) => expect(d).toMatchObject({ incidentTime: '2026-11-21T10:00:00Z', recommended: { windowId: 'rw_0003', gapBeforeIncidentSeconds: 0 } }),
  },
  {
    argv: ['recovery', 'proof', 'rw_0003'],
    human: [/^Proof$/m, /^ {2}baseline backup job: +bj_0007$/m, `baseline sha-256:         ${ARTIFACT_SHA}`, /^ {2}cursor chain contiguous: +yes$/m],
    json: (d) =>
      expect(d).toMatchObject({ window: { windowId: 'rw_0003' }, proof: { baselineArtifact: { backupJobId: 'bj_0007', checksumSha256: ARTIFACT_SHA } } }),
  },
  {
    argv: ['tools', 'list'],
    notes: [/^Tool catalog w4\.2\.0 \(minimum client contract w4\.2\.0\)$/m],
    human: [
      /^svc\.backup\.trigger +live +safe_write +backups:trigger/m,
      /^svc\.evidence\.export +no live route .* confirmation_required$/m,
      /^svc\.recovery\.restore +advisory/m,
    ],
    json: (d) => {
      expect(d.version).toBe('w4.2.0');
      expect(d.tools).toHaveLength(15);
    },
  },
  {
    argv: ['tools', 'get', 'svc.backup.trigger'],
    human: [/^kind: +live$/m, /^route scope: +backups:trigger$/m, /^human gate: +-$/m],
    json: (d) => expect(d).toMatchObject({ name: 'svc.backup.trigger', routeScope: 'backups:trigger', callable: true }),
  },
];

/** A page with more behind it says so on stderr (a hint), never on stdout. */
const PAGING_HINT = /^More results: add --cursor \S+, or --all for every page\.\n$/;

describe.concurrent('read commands, human output', () => {
  it.each(cases.map((c) => [c.argv.join(' '), c] as const))('svc %s', async (_name, c) => {
    const r = await svc(c.argv, { env: sb.env() });
    expect(r.code).toBe(0);
    if (c.argv.join(' ') === 'databases list') expect(r.stderr).toMatch(PAGING_HINT);
    else if (!c.notes) expect(r.stderr).toBe('');
    // Caveats and glossaries are on stderr, and only there (cli-contract 4).
    for (const n of c.notes ?? []) {
      expect(r.stderr).toMatch(n);
      expect(r.stdout).not.toMatch(n);
    }
    for (const p of c.human) {
      if (typeof p === 'string') expect(r.stdout).toContain(p);
      else expect(r.stdout).toMatch(p);
    }
  });
});

describe.concurrent('read commands, --json', () => {
  it.each(cases.map((c) => [c.argv.join(' '), c] as const))('svc %s --json', async (_name, c) => {
    const r = await svc([...c.argv, '--json'], { env: sb.env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(c.argv.join(' ') === 'databases list' ? PAGING_HINT : /^$/);
    c.json(JSON.parse(r.stdout));
  });
});

describe.concurrent('exit codes of failed reads', () => {
  it('2: a bad flag value is refused locally, before any request', async () => {
    // Against a closed port: a request would have made it exit 9.
    const env = cleanEnv({ SVC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, SVC_API_KEY: sb.token('full') });
    const r = await svc(['databases', 'list', '--limit', '0'], { env });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'error: Invalid --limit "0": a whole number from 1 to 10000.\n' });
    const bad = await svc(['databases', 'list', '--bogus'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option '--bogus'");
  });

  it('2: a 400 from the service (a cursor it never issued)', async () => {
    const r = await svc(['databases', 'list', '--cursor', 'not-a-cursor'], { env: sb.env() });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^error: cursor is not a cursor this service issued for this list\.$/m);
    expect(r.stderr).toMatch(REQUEST_ID_LINE);
    expect(r.stderr).toContain('(HTTP 400)');
  });

  it('2: the same 400 as a --json envelope on stderr', async () => {
    const r = await svc(['destinations', 'list', '--cursor', 'not-a-cursor', '--json'], { env: sb.env() });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(errorEnvelope(r.stderr)).toMatchObject({ status: 400, requestId: expect.stringMatching(/^req_/) });
  });

  it('3: no token configured at all', async () => {
    const r = await svc(['databases', 'list'], { env: sb.env(null) });
    expect(r).toMatchObject({ code: 3, stdout: '' });
    expect(r.stderr).toContain(`error: No API token is configured for ${sb.baseUrl}.`);
    expect(r.stderr).toContain('svc auth login');
  });

  it('3: an expired token (401)', async () => {
    const r = await svc(['profile'], { env: sb.env('expired') });
    expect(r).toMatchObject({ code: 3, stdout: '' });
    expect(r.stderr).toMatch(/^error: The API key is missing, expired or revoked\.$/m);
    expect(r.stderr).toContain('(HTTP 401)');
  });

  it('3: a revoked token (401), --json', async () => {
    const r = await svc(['databases', 'get', 'db_orders', '--json'], { env: sb.env('revoked') });
    expect(r).toMatchObject({ code: 3, stdout: '' });
    expect(errorEnvelope(r.stderr)).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('4: a read-only token on evidence names the required scope and the next action', async () => {
    const r = await svc(['evidence', 'get', 'bj_0007'], { env: sb.env('read-only') });
    expect(r).toMatchObject({ code: 4, stdout: '' });
    expect(r.stderr).toMatch(/^ {2}required scope: evidence:read$/m);
    expect(r.stderr).toMatch(/^ {2}next action: Issue a token with evidence:read/m);
    expect(r.stderr).toMatch(REQUEST_ID_LINE);
  });

  it('4: the same 403 as a --json envelope', async () => {
    const r = await svc(['evidence', 'list', '--json'], { env: sb.env('read-only') });
    expect(r.code).toBe(4);
    expect(errorEnvelope(r.stderr)).toMatchObject({ code: 'forbidden', status: 403, requiredScope: 'evidence:read' });
  });

  it("5: another organization's id answers as not found", async () => {
    const r = await svc(['databases', 'get', 'db_orders'], { env: sb.env('org-b') });
    expect(r).toMatchObject({ code: 5, stdout: '' });
    expect(r.stderr).toMatch(/^error: Protected database not found\.$/m);
    expect(r.stderr).toContain('(HTTP 404)');
    const json = await svc(['backups', 'get', 'bj_0007', '--json'], { env: sb.env('org-b') });
    expect(json.code).toBe(5);
    expect(errorEnvelope(json.stderr)).toMatchObject({ status: 404, requestId: expect.stringMatching(/^req_/) });
  });

  it('5: a tool the catalog does not list', async () => {
    const r = await svc(['tools', 'get', 'svc.nope'], { env: sb.env('no-scope') });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('No tool named "svc.nope"');
  });

  it('8: rate limited, with retries turned off', async () => {
    // tiny-budget allows 3 requests per 10 s; no other test uses it.
    for (let i = 0; i < 3; i++) {
      const res = await request(`${sb.baseUrl}/api/v1/profile`, { headers: { authorization: `Bearer ${sb.token('tiny-budget')}` } });
      await res.body.dump();
    }
    const r = await svc(['--max-retries', '0', 'profile'], { env: sb.env('tiny-budget') });
    expect(r).toMatchObject({ code: 8, stdout: '' });
    expect(r.stderr).toMatch(/^error: Rate limit exceeded\.$/m);
    expect(r.stderr).toContain('(HTTP 429)');
  });

  it('9: connection refused on a closed port (no retries)', async () => {
    const port = await closedPort();
    const r = await svc(['--max-retries', '0', 'databases', 'list'], {
      env: cleanEnv({ SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_API_KEY: sb.token('full') }),
    });
    expect(r).toMatchObject({ code: 9, stdout: '' });
    expect(r.stderr).toContain(`error: Could not reach the service at 127.0.0.1:${port}: ECONNREFUSED.`);
  });
});

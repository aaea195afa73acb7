import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { run } from '../../../src/cli.js';
import type { Context } from '../../../src/context.js';
import { runCli } from '../../support/run-cli.js';
import { startTestSandbox } from '../../support/sandbox.js';

interface Started {
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number>;
  abort: () => void;
}

/** Runs `svc sandbox ...` in-process and resolves once its first stdout document is written. */
async function startCommand(argv: string[]): Promise<Started & { firstOutput: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const outChunks: Buffer[] = [];
  const errChunks: Buffer[] = [];
  const controller = new AbortController();
  const firstOutput = new Promise<string>((resolve) => out.once('data', (c: Buffer) => resolve(c.toString('utf8'))));
  out.on('data', (c: Buffer) => outChunks.push(c));
  err.on('data', (c: Buffer) => errChunks.push(c));
  const ctx: Context = {
    stdout: out,
    stderr: err,
    stdin: Readable.from([]),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: { NO_COLOR: '1' },
    signal: controller.signal,
    sleep: async () => {},
    random: () => 0.5,
    now: () => new Date(),
    prompter: { secret: async () => undefined, text: async () => undefined },
    keytar: null,
  };
  const exit = run(argv, ctx);
  const first = await Promise.race([firstOutput, exit.then((code) => `exited early with ${code}: ${Buffer.concat(errChunks)}`)]);
  return {
    firstOutput: first,
    stdout: () => Buffer.concat(outChunks).toString('utf8'),
    stderr: () => Buffer.concat(errChunks).toString('utf8'),
    exit,
    abort: () => controller.abort(),
  };
}

describe('svc sandbox', () => {
  it('--json prints one document with the base URL and tokens, serves, and exits 0 on SIGINT', async () => {
    const cmd = await startCommand(['sandbox', '--port', '0', '--json']);
    const doc = JSON.parse(cmd.firstOutput);
    expect(doc.notice).toMatch(/not the service/);
    expect(doc.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(doc.tokens.map((t: { name: string }) => t.name)).toEqual(['full', 'read-only', 'no-scope', 'expired', 'revoked', 'org-b', 'tiny-budget', 'drill']);
    const full = doc.tokens.find((t: { name: string }) => t.name === 'full').token;

    const res = await request(`${doc.baseUrl}/api/v1/profile`, { headers: { authorization: `Bearer ${full}` } });
    expect(res.statusCode).toBe(200);
    await res.body.dump();

    cmd.abort();
    expect(await cmd.exit).toBe(0);
    expect(cmd.stdout()).toBe(cmd.firstOutput);
    expect(cmd.stderr()).toMatch(/GET \/api\/v1\/profile 200 \d+ms full req_/);
    expect(cmd.stderr()).toContain('Sandbox stopped.');
    await expect(request(`${doc.baseUrl}/api/v1/profile`)).rejects.toThrow();
  });

  it('prints a banner that says it is not the service, the tokens and how to use them', async () => {
    const cmd = await startCommand(['sandbox', '--port', '0']);
    // The banner is written in one go once the server listens: data on stdout, the notice and the how-to on stderr.
    const data = cmd.stdout();
    const notes = cmd.stderr();
    expect(notes).toContain('It is not the service');
    expect(data).not.toContain('It is not the service');
    expect(data).toMatch(/base url: +http:\/\/127\.0\.0\.1:\d+/);
    for (const name of ['full', 'read-only', 'no-scope', 'expired', 'revoked', 'org-b', 'tiny-budget', 'drill'])
      expect(data).toMatch(new RegExp(`^${name} `, 'm'));
    expect(notes).toContain('export SVC_API_KEY=svc_sandbox_3eb1d95aaff52a54cd98169b4d6d4c70');
    cmd.abort();
    expect(await cmd.exit).toBe(0);
  });

  it.each([['70000'], ['-1'], ['abc']])('--port %s is a usage error (exit 2)', async (port) => {
    const res = await runCli(['sandbox', '--port', port]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--port');
  });

  it('a --data directory without the layout is exit 2 naming the path', async () => {
    const res = await runCli(['sandbox', '--port', '0', '--data', '/nonexistent/sandbox-data']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('/nonexistent/sandbox-data');
  });

  it('a port in use is exit 2 with a hint', async () => {
    const other = await startTestSandbox();
    const res = await runCli(['sandbox', '--port', String(other.port)]);
    await other.stop();
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--port 0');
  });

  it('--help says it is never the service', async () => {
    const res = await runCli(['sandbox', '--help']);
    expect(res.stdout).toContain('It is not the service');
    expect(res.stdout).toContain('--port <n>');
    expect(res.stdout).toContain('--data <dir>');
  });
});

describe('svc commands against the sandbox', () => {
  it('show the exit codes of the contract', async () => {
    const sb = await startTestSandbox();
    const env = (token: string) => ({ SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.token(token) });
    try {
      const all = await runCli(['databases', 'list', '--all', '--json'], { env: env('full') });
      expect(all.code).toBe(0);
      expect(JSON.parse(all.stdout).databases).toHaveLength(3);
      expect((await runCli(['profile'], { env: env('expired') })).code).toBe(3);
      expect((await runCli(['evidence', 'list'], { env: env('read-only') })).code).toBe(4);
      expect((await runCli(['databases', 'get', 'db_orders'], { env: env('org-b') })).code).toBe(5);
      const tools = await runCli(['tools', 'list'], { env: env('no-scope') });
      expect(tools.code).toBe(0);
      expect(tools.stdout).toContain('svc.backup.trigger');
    } finally {
      await sb.stop();
    }
  });
});

/**
 * The package as users get it (cli-contract 8): `npm pack` in a copy of the repository (so prepack
 * builds there, away from the dist/ other tests run), the tarball's contents, `npm install -g
 * --prefix <tmp>` of it, then the installed `svc`: --version, sandbox, and a call against it.
 */
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cleanupBuiltCli, ROOT, waitForOutput } from '../support/built-cli.js';
import { manSkipReason, renderMan } from '../support/man.js';

const VERSION = (await import('../../package.json', { with: { type: 'json' } })).default.version;
const FULL_TOKEN = 'svc_sandbox_3eb1d95aaff52a54cd98169b4d6d4c70';

describe('npm pack, npm install -g, svc', () => {
  let work: string;
  let tarball: string;
  let prefix: string;
  let files: string[];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'svc-pack-'));
    const copy = join(work, 'repo');
    const tracked = (await execa('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT })).stdout.split('\n').filter(Boolean);
    for (const file of tracked) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      try {
        cpSync(join(ROOT, file), join(copy, file));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // deleted, not yet committed
      }
    }
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const pack = await execa('npm', ['pack', '--json', '--pack-destination', work], { cwd: copy, stdin: 'ignore' });
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(work, info!.filename);
    files = info!.files.map((f) => f.path).sort();
    prefix = join(work, 'prefix');
    await execa('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], { stdin: 'ignore' });
  }, 300_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
    // The HOMEs and TMPDIRs cleanEnv() made for the installed svc's runs.
    cleanupBuiltCli();
  });

  it('holds the bundle, the man page, the fixtures the sandbox serves, README, CHANGELOG and LICENSE, and nothing else', () => {
    expect(readdirSync(work)).toContain(`svc-${VERSION}.tgz`);
    const outside = files.filter(
      (f) =>
        !['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'bin/svc', 'bin/package.json', 'man/svc.1'].includes(f) &&
        !/^dist\/chunks\/[\w-]+\.[mc]js$/.test(f) &&
        // The start script and the loader of its code cache, undici as a file of its own, and llhttp's
        // WebAssembly it reads (tools/bundle.mjs).
        !/^dist\/chunks\/(start\.cjs|code-cache\.cjs|undici-core\.cjs|llhttp(_simd)?\.wasm)$/.test(f) &&
        !/^fixtures\/(api|sandbox|artifacts)\/[\w.-]+$/.test(f),
    );
    expect(outside).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['bin/package.json', 'dist/chunks/start.cjs', 'dist/chunks/code-cache.cjs']));
    expect(files).toEqual(expect.arrayContaining(['dist/chunks/undici-core.cjs', 'dist/chunks/llhttp.wasm', 'dist/chunks/llhttp_simd.wasm']));
    expect(files).toContain('man/svc.1');
    expect(files).toContain('fixtures/artifacts/acme-orders.pgdump');
    expect(files.filter((f) => /\.(ts|map)$/.test(f) || /^(src|test|tools|scripts|bench)\//.test(f))).toEqual([]);
  });

  it('the installed svc answers --version and --help', async () => {
    const svc = join(prefix, 'bin', 'svc');
    const version = await execa(svc, ['--version'], { env: cleanEnv(), extendEnv: false });
    expect(version.stdout).toBe(VERSION);
    const help = await execa(svc, ['--help'], { env: cleanEnv(), extendEnv: false });
    expect(help.stdout).toContain('Usage: svc [options] [command]');
  });

  it('the installed svc runs its sandbox, and talks to it', async () => {
    const svc = join(prefix, 'bin', 'svc');
    const sandbox = execa(svc, ['sandbox', '--port', '0', '--json'], { env: cleanEnv(), extendEnv: false, reject: false });
    try {
      const { baseUrl } = JSON.parse(await waitForOutput(sandbox, 'stdout', /\n}\n$/));
      const list = await execa(svc, ['databases', 'list'], { env: cleanEnv({ SVC_BASE_URL: baseUrl, SVC_API_KEY: FULL_TOKEN }), extendEnv: false });
      expect(list.stdout).toMatch(/^db_orders +orders-prod +neon +active/m);
      // --jq runs in a worker thread started from its own file of the bundle (dist/chunks/jq-worker.mjs).
      const ids = await execa(svc, ['databases', 'list', '--jq', '.databases[0].id'], {
        env: cleanEnv({ SVC_BASE_URL: baseUrl, SVC_API_KEY: FULL_TOKEN }),
        extendEnv: false,
      });
      expect(ids.stdout).toBe('db_orders');
    } finally {
      sandbox.kill('SIGINT');
      expect((await sandbox).exitCode).toBe(0);
    }
  });

  it('the installed svc serves MCP: the SDK, a devDependency, is in the bundle', async () => {
    const svc = join(prefix, 'bin', 'svc');
    const sandbox = execa(svc, ['sandbox', '--port', '0', '--json'], { env: cleanEnv(), extendEnv: false, reject: false });
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    try {
      const { baseUrl } = JSON.parse(await waitForOutput(sandbox, 'stdout', /\n}\n$/));
      const env = cleanEnv({ SVC_BASE_URL: baseUrl, SVC_API_KEY: FULL_TOKEN });
      await client.connect(new StdioClientTransport({ command: svc, args: ['mcp', 'serve', '--tools', 'list_databases'], env, stderr: 'ignore' }));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['list_databases']);
      const r = await client.callTool({ name: 'list_databases', arguments: { limit: 1 } });
      expect((r.structuredContent as { databases: Array<{ id: string }> }).databases.map((d) => d.id)).toEqual(['db_orders']);
    } finally {
      await client.close();
      sandbox.kill('SIGINT');
      expect((await sandbox).exitCode).toBe(0);
    }
  });

  const noMan = manSkipReason();

  it.skipIf(!!noMan)(`man svc finds the installed page and renders it without a warning${noMan ? ` (skipped: ${noMan})` : ''}`, async () => {
    // npm links the page into <prefix>/share/man/man1; man-db finds it from PATH (<prefix>/bin -> <prefix>/share/man),
    // as a user's shell does, and names the file the link points to.
    const link = join(prefix, 'share', 'man', 'man1', 'svc.1');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const where = await execa('man', ['-w', 'svc'], { env: { PATH: `${join(prefix, 'bin')}:/usr/bin:/bin` }, extendEnv: false, reject: false });
    expect(where.stdout).toBe(realpathSync(link));
    const page = await renderMan({ name: 'svc', manpath: join(prefix, 'share', 'man') });
    expect(page.stderr).toBe('');
    expect(page.exitCode).toBe(0);
    expect(page.text).toMatch(/^SVC\(1\) /);
    expect(page.text).toContain('svc restore drill [options] [command] [databaseIds...]');
    expect(page.text).toMatch(/^ +13 +a +restore +drill +failed/m);
  });
});

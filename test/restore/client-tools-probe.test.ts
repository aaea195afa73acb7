/**
 * Every restore's preflight looks for pg_restore and psql (cli-contract 7.2), and a drill runs one
 * restore per database: each `--version` is a process (through Debian's pg_wrapper, a Perl one), so
 * within one svc process each tool on a given PATH is asked once. Fake tools on PATH count the calls.
 */
import { appendFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalToolError } from '../../src/errors.js';
import { findClientTools } from '../../src/restore/target/pg-restore-choice.js';

describe('the client tools are asked their version once per process', () => {
  let dir = '';
  let calls = '';
  const tool = (name: string, version: string) =>
    ['#!/bin/sh', `echo "${name} $*" >> '${calls}'`, `[ "$1" = "--version" ] && { echo "${name} (PostgreSQL) ${version}"; exit 0; }`, 'exit 1', ''].join('\n');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-client-tools-'));
    calls = join(dir, 'calls.log');
    appendFileSync(calls, '');
    for (const name of ['psql', 'pg_restore']) {
      await writeFile(join(dir, name), tool(name, '15.18'));
      await chmod(join(dir, name), 0o755);
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('three restores on the same PATH (a drill of three databases) run psql --version and pg_restore --version once each', async () => {
    const env = { PATH: `${dir}:/usr/bin:/bin` };
    for (let i = 0; i < 3; i++) expect((await findClientTools(env)).path).toBe(join(dir, 'pg_restore'));
    const lines = (await readFile(calls, 'utf8')).trim().split('\n');
    expect(lines.sort()).toEqual(['pg_restore --version', 'psql --version']);
  });

  it('a psql that fails is asked again by the next restore, which says so again', async () => {
    const other = await mkdtemp(join(tmpdir(), 'svc-client-tools-broken-'));
    try {
      await writeFile(join(other, 'psql'), `#!/bin/sh\necho "psql $*" >> '${calls}'\nexit 3\n`);
      await chmod(join(other, 'psql'), 0o755);
      await writeFile(calls, '');
      const env = { PATH: `${other}:${dir}:/usr/bin:/bin` };
      for (let i = 0; i < 2; i++) await expect(findClientTools(env)).rejects.toThrow(LocalToolError);
      expect((await readFile(calls, 'utf8')).trim().split('\n')).toEqual(['psql --version', 'psql --version']);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

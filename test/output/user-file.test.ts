/**
 * The one writer of the files svc writes for the user (cli-contract 7.15): whole files, 0644,
 * scrubbed of the run's secrets as stdout is, never through a symbolic link, and a write that fails
 * is exit 2 naming the path and the cause.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { UserFiles } from '../../src/output/user-file.js';
import { SecretScrubber } from '../../src/secrets.js';

const root = mkdtempSync(join(tmpdir(), 'svc-user-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = join(root, `d${++n}`);
  mkdirSync(dir);
  return dir;
};

const LOCK = 'lk_5ec7e75ec7e75ec7e75ec7e75ec7e75e';
const URL = 'https://bucket.example/a.pgdump?X-Amz-Signature=abcdef0123456789&X-Amz-Credential=AKIAEXAMPLE';
const scrubber = new SecretScrubber();
scrubber.add(LOCK);
scrubber.add(URL);
const files = new UserFiles(scrubber);

async function refusal(write: Promise<void>): Promise<CliError> {
  const err = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CliError);
  return err as CliError;
}

describe('UserFiles', () => {
  it('writes the file whole, mode 0644 under a umask of 077, over an earlier one, and leaves no temporary file', async () => {
    const dir = fresh();
    const path = join(dir, 'out.json');
    writeFileSync(path, 'old', { mode: 0o600 });
    const previous = process.umask(0o077);
    try {
      await files.json(path, { a: 1 });
    } finally {
      process.umask(previous);
    }
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ a: 1 });
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(['out.json']);
  });

  it('an echoed lock token or presigned URL is [redacted] in JSON (in any field, and by key) and in text', async () => {
    const dir = fresh();
    const echoed = { restoreJobId: `rj_hostile_${LOCK}`, debug: { lockToken: 'lk_another_runs_token', presignedS3Url: 'https://x/y' }, message: `from ${URL}` };
    await files.json(join(dir, 'r.json'), echoed);
    expect(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'))).toEqual({
      restoreJobId: 'rj_hostile_[redacted]',
      debug: { lockToken: '[redacted]', presignedS3Url: '[redacted]' },
      message: 'from [redacted]',
    });
    await files.text(join(dir, 'r.md'), `| rj_hostile_${LOCK} | ${URL} |\n`);
    expect(readFileSync(join(dir, 'r.md'), 'utf8')).toBe('| rj_hostile_[redacted] | [redacted] |\n');
  });

  it('a symbolic link at the path is refused with exit 2 naming it; its target keeps its content and mode', async () => {
    const dir = fresh();
    const target = join(fresh(), 'victim');
    writeFileSync(target, 'precious');
    chmodSync(target, 0o600);
    const link = join(dir, 'junit.xml');
    symlinkSync(target, link);
    const err = await refusal(files.text(link, '<testsuite/>'));
    expect(err.exitCode).toBe(2);
    expect(err.details.code).toBe('file_is_link');
    expect(err.message).toBe(`${link} is a symbolic link; svc does not write through one (its target was left untouched).`);
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir)).toEqual(['junit.xml']);
  });

  it('a dangling link is refused too: it would otherwise create the file it points at', async () => {
    const dir = fresh();
    const target = join(fresh(), 'planted');
    symlinkSync(target, join(dir, 'drill.md'));
    expect((await refusal(files.text(join(dir, 'drill.md'), 'x'))).exitCode).toBe(2);
    expect(() => statSync(target)).toThrow();
  });

  it('a directory that is a link (receipts/) is refused; nothing is written into its target', async () => {
    const dir = fresh();
    const target = fresh();
    symlinkSync(target, join(dir, 'receipts'));
    const err = await refusal(files.directory(join(dir, 'receipts')));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(`${join(dir, 'receipts')} is a symbolic link`);
    expect(readdirSync(target)).toEqual([]);
  });

  it('a write that fails is exit 2 naming the path and the cause, not an unexpected failure', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'file'), '');
    const path = join(dir, 'file', 'receipt.json');
    const err = await refusal(files.json(path, {}));
    expect(err.exitCode).toBe(2);
    expect(err.details.code).toBe('file_not_written');
    expect(err.message).toBe(`Could not write ${path}: a part of the path is not a directory (ENOTDIR).`);
    expect(err.details.hint).not.toMatch(/bug/);
  });
});

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { scanForSecrets } from './secret-scan.js';

const TOKEN = 'svc_live_0123456789abcdef0123456789abcdef';
const URL_WITH_SIGNATURE = 'http://127.0.0.1:9/artifacts/a.dump?X-Amz-Date=20261123T000000Z&X-Amz-Signature=feedfacefeedface';
const secrets = {
  tokens: [TOKEN],
  lockTokens: ['lock_abcdef123'],
  presignedUrls: [URL_WITH_SIGNATURE],
  dsnPasswords: ['p@ss:word'],
  patterns: [/lk_[0-9a-f]{16,}/],
};

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The scan guards every e2e and restore case: it must find what it is meant to find, wherever it is. */
it.each([
  ['the whole token in stdout', { texts: [`token ${TOKEN}`] }, /output #1: API token/],
  ['the hex part of the token without its prefix', { texts: ['…0123456789abcdef0123456789abcdef'] }, /API token \(hex part\)/],
  ['a lock token', { texts: ['', 'lock_abcdef123'] }, /output #2: lock token/],
  ['an unknown lock token by its shape', { texts: ['lk_00112233445566778899'] }, /lk_/],
  ['a URL signature alone', { texts: ['sig=feedfacefeedface'] }, /URL signature/],
  ['any X-Amz-Signature parameter', { texts: ['?X-Amz-Signature=abc'] }, /X-Amz-Signature query parameter/],
  ['a URI-encoded DSN password', { texts: ['postgresql://u:p%40ss%3Aword@h/d'] }, /DSN password \(URI-encoded\)/],
])('finds %s', async (_what, target, pattern) => {
  const report = await scanForSecrets(target, secrets);
  expect(report.join('\n')).toMatch(pattern);
});

it('searches files in nested directories, skips allowed files, and reports clean runs as empty', async () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-scan-'));
  dirs.push(root);
  mkdirSync(join(root, 'work', 'svc-pgpass-x'), { recursive: true });
  writeFileSync(join(root, 'work', 'svc-pgpass-x', 'pgpass'), '*:*:*:u:p@ss:word\n');
  writeFileSync(join(root, 'credentials.json'), JSON.stringify({ tokens: { x: TOKEN } }));
  writeFileSync(join(root, 'receipt.json'), '{"verified":true}');

  const report = await scanForSecrets({ paths: [root, join(root, 'missing')], allowed: (f) => f.endsWith('credentials.json') }, secrets);
  expect(report).toEqual([`${join(root, 'work', 'svc-pgpass-x', 'pgpass')}: DSN password (p@ss:word…)`]);
  expect(await scanForSecrets({ texts: ['all clear'], paths: [join(root, 'receipt.json')] }, secrets)).toEqual([]);
  // A signature svc replaced is no signature.
  expect(await scanForSecrets({ texts: ['?X-Amz-Date=20261123T000000Z&X-Amz-Signature=[redacted]'] }, secrets)).toEqual([]);
});

it('finds a secret in a binary file, a non-ASCII password by its UTF-8 bytes, and in a link text; does not follow a link out', async () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-scan-'));
  const outside = mkdtempSync(join(tmpdir(), 'svc-scan-outside-'));
  dirs.push(root, outside);
  const password = 'pässwörd-ß';
  // Bytes that are not UTF-8 around each secret, as in a PostgreSQL data file.
  const binary = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe, 0x80, 0x00]), Buffer.from(text, 'utf8'), Buffer.from([0xc3, 0x00, 0xff])]);
  writeFileSync(join(root, 'page-1'), binary(TOKEN));
  writeFileSync(join(root, 'page-2'), binary(password));
  // The same password in Latin-1 is other bytes: not the secret.
  writeFileSync(join(root, 'latin1'), Buffer.from(password, 'latin1'));
  symlinkSync(`/tmp/${TOKEN}`, join(root, 'named-link'));
  writeFileSync(join(outside, 'theirs'), TOKEN);
  symlinkSync(join(outside, 'theirs'), join(root, 'link-out'));
  const report = await scanForSecrets({ paths: [root] }, { ...secrets, dsnPasswords: [password] });
  expect(report.sort()).toEqual(
    [
      `${join(root, 'named-link')} (a link): API token (${TOKEN.slice(0, 10)}…)`,
      `${join(root, 'named-link')} (a link): API token (hex part) (0123456789…)`,
      `${join(root, 'page-1')}: API token (${TOKEN.slice(0, 10)}…)`,
      `${join(root, 'page-1')}: API token (hex part) (0123456789…)`,
      `${join(root, 'page-2')}: DSN password (${password.slice(0, 10)}…)`,
    ].sort(),
  );
});

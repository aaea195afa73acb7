/**
 * The one secret scan of the suite (issue 11): after a case, no secret may be in anything it left
 * behind: stdout, stderr, a receipt, the work dir, TMPDIR. The secrets are the API token (whole,
 * and the random hex part on its own, which survives a prefix being cut off), lock tokens, presigned
 * URLs (whole, their query string and their signature) and DSN passwords (plain and URI-encoded).
 */
import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface Secrets {
  tokens?: Iterable<string | undefined>;
  lockTokens?: Iterable<string | undefined>;
  presignedUrls?: Iterable<string | undefined>;
  dsnPasswords?: Iterable<string | undefined>;
  /** Secrets the test cannot know in advance, by their shape (the sandbox's `lk_<hex>` lock tokens). */
  patterns?: Iterable<RegExp>;
}

/** Longer files are artifacts or dumps: they hold database contents, never anything svc wrote. */
const MAX_SCANNED_FILE = 8 * 1024 * 1024;

/** Every string that must not appear, each with what it is (for the failure message only). */
export function needles(secrets: Secrets): Array<{ what: string; value: string }> {
  const out: Array<{ what: string; value: string }> = [];
  const add = (what: string, value: string | undefined) => {
    if (value && value.length >= 6 && !out.some((n) => n.value === value)) out.push({ what, value });
  };
  for (const token of secrets.tokens ?? []) {
    add('API token', token);
    // svc_live_<hex>: the hex part alone identifies the token.
    add('API token (hex part)', /[0-9a-f]{16,}$/i.exec(token ?? '')?.[0]);
  }
  for (const lock of secrets.lockTokens ?? []) add('lock token', lock);
  for (const url of secrets.presignedUrls ?? []) {
    if (!url) continue;
    add('presigned URL', url);
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    add('presigned URL query', parsed?.search.slice(1));
    add('URL signature', parsed?.searchParams.get('X-Amz-Signature') ?? undefined);
  }
  for (const pw of secrets.dsnPasswords ?? []) {
    add('DSN password', pw);
    add('DSN password (URI-encoded)', pw === undefined ? undefined : encodeURIComponent(pw));
  }
  return out;
}

/**
 * What of `secrets` `text` holds, plus any presigned signature at all (known to the test or not).
 * `holds` says whether a secret is there: in `text`, unless the caller has a better place to look.
 */
export function leaksIn(text: string, secrets: Secrets, holds = (value: string) => text.includes(value)): string[] {
  const found = needles(secrets)
    .filter((n) => holds(n.value))
    .map((n) => `${n.what} (${n.value.slice(0, 10)}…)`);
  // Any signature at all, known to the test or not; one svc replaced with [redacted] is none.
  if (/X-Amz-Signature=(?!\[redacted\])/i.test(text)) found.push('an X-Amz-Signature query parameter');
  for (const pattern of secrets.patterns ?? []) {
    const m = pattern.exec(text);
    if (m) found.push(`${pattern} (${m[0].slice(0, 10)}…)`);
  }
  return found;
}

/**
 * leaksIn for a file's bytes, read as Latin-1 (one character per byte), so a data directory's binary
 * files are not decoded as UTF-8: ASCII secrets and patterns match as in text, other secrets by
 * their UTF-8 bytes.
 */
function leaksInBytes(bytes: Buffer, secrets: Secrets): string[] {
  const text = bytes.toString('latin1');
  return leaksIn(text, secrets, (value) => (/[^\x00-\x7f]/.test(value) ? bytes.includes(Buffer.from(value, 'utf8')) : text.includes(value)));
}

/**
 * Every regular file under `paths` (files or directories, recursively; missing paths are skipped),
 * and every symbolic link below them, whose target is not followed: a case's PATH of links to
 * /usr/bin left nothing in /usr/bin. A link's own text is scanned (`links`).
 */
async function filesUnder(paths: Iterable<string>): Promise<{ files: string[]; links: string[] }> {
  const files: string[] = [];
  const links: string[] = [];
  const visit = async (path: string, top: boolean): Promise<void> => {
    const st = await (top ? stat(path) : lstat(path)).catch(() => undefined);
    if (!st) return;
    if (st.isSymbolicLink()) {
      links.push(path);
    } else if (st.isDirectory()) {
      for (const entry of await readdir(path).catch(() => [] as string[])) await visit(join(path, entry), false);
    } else if (st.isFile() && st.size <= MAX_SCANNED_FILE) {
      files.push(path);
    }
  };
  for (const p of paths) await visit(p, true);
  return { files, links };
}

export interface ScanTarget {
  /** Outputs: stdout, stderr, prompts, notices. */
  texts?: Iterable<string>;
  /** Files and directories: receipts, work dirs, TMPDIR, config dirs. */
  paths?: Iterable<string>;
  /** Files under `paths` that hold a secret by design (the credentials file a file login writes). */
  allowed?: (file: string) => boolean;
}

/** Every leak, as "where: what"; empty when the case left no secret anywhere. */
export async function scanForSecrets(target: ScanTarget, secrets: Secrets): Promise<string[]> {
  const report: string[] = [];
  let i = 0;
  for (const text of target.texts ?? []) {
    i += 1;
    for (const leak of leaksIn(text, secrets)) report.push(`output #${i}: ${leak}`);
  }
  const { files, links } = await filesUnder(target.paths ?? []);
  for (const link of links) {
    for (const leak of leaksIn(await readlink(link).catch(() => ''), secrets)) report.push(`${link} (a link): ${leak}`);
  }
  for (const file of files) {
    if (target.allowed?.(file)) continue;
    const bytes = await readFile(file).catch(() => Buffer.alloc(0));
    // V8's code cache is svc's own compiled code, binary: its string table holds the source's examples
    // (`https://user:pass@proxy...`), which the generic patterns match across binary bytes. Every real
    // secret of the case is still looked for in it.
    const scanned = /\/svc\/code-cache\//.test(file) ? { ...secrets, patterns: [] } : secrets;
    for (const leak of leaksInBytes(bytes, scanned)) report.push(`${file}: ${leak}`);
  }
  return report;
}

/** Throws with the full report when anything leaked. */
export async function expectNoSecretsLeft(target: ScanTarget, secrets: Secrets): Promise<void> {
  const report = await scanForSecrets(target, secrets);
  if (report.length) throw new Error(`secrets left behind:\n  ${report.join('\n  ')}`);
}

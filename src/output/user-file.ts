import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../errors.js';
import type { SecretScrubber } from '../secrets.js';

/** What of the run's scrubber a file needs: the same calls stdout makes (cli.ts, session.ts). */
export type FileScrubber = Pick<SecretScrubber, 'scrubKnown' | 'scrubDocument'>;

/**
 * The one way svc writes a file for the user (`--receipt`, `--report`, `--metrics-file`;
 * cli-contract 7.15): the bytes scrubbed of the run's secrets as stdout's are, written whole to a
 * temporary file beside the final one and renamed into place, mode 0644 whatever the umask.
 * A symbolic link at the final path is refused: in a shared directory (`/tmp/drill-report`) whoever
 * planted it would choose which file svc overwrites. rename(2) replaces a link, never follows it, so
 * a link planted between the check and the rename is not written through either.
 */
export class UserFiles {
  constructor(private readonly scrubber: FileScrubber) {}

  /** A JSON document: secret fields by name and known secrets anywhere, as --json stdout. */
  async json(path: string, value: unknown): Promise<void> {
    await this.text(path, `${JSON.stringify(this.scrubber.scrubDocument(value), null, 2)}\n`);
  }

  /** `value` as a file written from it holds it: for text made from a document (Markdown, XML). */
  scrubbed<T>(value: T): T {
    return this.scrubber.scrubDocument(value);
  }

  /** Text already escaped for its medium (Markdown, XML, metrics). */
  async text(path: string, text: string): Promise<void> {
    await refuseLink(path);
    // node:crypto loads only here, as in config/json-file.ts: few commands write a file.
    const { randomBytes } = await import('node:crypto');
    const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      // O_EXCL: never an existing file, and never through a link planted at the temporary name.
      const file = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
      try {
        await file.chmod(0o644);
        await file.writeFile(this.scrubber.scrubKnown(text), 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw isCliError(err) ? err : notWritten(path, err);
    }
  }

  /** A directory of files (`--report DIR/receipts`): made where missing, refused where it is a link. */
  async directory(path: string): Promise<void> {
    await refuseLink(path);
    try {
      await mkdir(path, { recursive: true });
    } catch (err) {
      throw notWritten(path, err);
    }
  }
}

const isCliError = (err: unknown): err is CliError => err instanceof CliError;

/** Exit 2 for the first of `paths` that is a symbolic link: checked before long work, so a drill does not run only to be refused. */
export async function refuseLinks(paths: Iterable<string>): Promise<void> {
  for (const path of paths) await refuseLink(path);
}

async function refuseLink(path: string): Promise<void> {
  const st = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw notWritten(path, err);
  });
  if (st?.isSymbolicLink()) {
    throw new CliError('file_is_link', `${path} is a symbolic link; svc does not write through one (its target was left untouched).`);
  }
}

const CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EISDIR: 'a directory is in the way',
  EEXIST: 'a file is in the way',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'the directory does not exist',
  EIO: 'an input/output error',
};

/** Exit 2 naming the path and the cause: a file svc could not write is the user's to fix, never "a bug in svc". */
export function notWritten(path: string, err: unknown): CliError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const cause = (code && CAUSES[code]) ?? (err instanceof Error ? err.message : String(err));
  return new CliError('file_not_written', `Could not write ${path}: ${cause}${code ? ` (${code})` : ''}.`);
}

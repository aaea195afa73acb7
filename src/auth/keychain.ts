import type { Context, KeytarLike } from '../context.js';

export const KEYCHAIN_SERVICE = 'svc';
const KEYCHAIN_TIMEOUT_MS = 3_000;

/** Why the keychain could not be used; shown as a warning before falling back to the file. */
export class KeychainUnavailable extends Error {}

export interface Keychain extends KeytarLike {
  /** Which binding answers: shown by `auth status`. */
  backend: '@napi-rs/keyring' | 'keytar' | 'test';
}

type Env = Record<string, string | undefined>;
const unwrap = <T>(mod: T | { default: T }): T => ((mod as { default?: T }).default ?? mod) as T;

/**
 * @napi-rs/keyring, the maintained binding whose native code ships in per-platform npm packages
 * (no compiler, no libsecret-1-dev). Its keytar.js builds entries without options, so the same
 * three keytar-shaped calls are made here from AsyncEntry, which can be told, on Linux, to use the
 * Secret Service only: its silent fallback, the kernel keyutils keyring, does not survive a reboot,
 * and a token stored there would be lost while login said "stored in the keychain".
 */
async function napiKeyring(): Promise<Keychain> {
  const { AsyncEntry } = unwrap(await import('@napi-rs/keyring'));
  const entry = (service: string, account: string) => new AsyncEntry(service, account, { linux: { store: 'secret-service' } });
  const deadline = () => AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS);
  return {
    backend: '@napi-rs/keyring',
    getPassword: (service, account) => entry(service, account).getPassword(deadline()),
    setPassword: (service, account, password) => entry(service, account).setPassword(password, deadline()),
    deletePassword: (service, account) => entry(service, account).deletePassword(deadline()),
  };
}

/** keytar: archived in December 2022, and it fetches its binaries from outside npm; the second backend, where it is installed. */
async function keytar(): Promise<Keychain> {
  return { backend: 'keytar', ...unwrap(await import('keytar')) };
}

const BACKENDS = { keyring: napiKeyring, keytar } as const;

/**
 * The first backend that loads: @napi-rs/keyring, then keytar. SVC_KEYCHAIN=keyring|keytar picks
 * one, SVC_KEYCHAIN=file skips the keychain (a machine whose keychain misbehaves).
 */
async function loadKeychain(ctx: Pick<Context, 'keytar'> & { env: Env }): Promise<Keychain> {
  if (ctx.keytar !== undefined) {
    if (ctx.keytar === null) throw new KeychainUnavailable('no keychain in this environment');
    const k = ctx.keytar;
    return {
      backend: 'test',
      getPassword: (s, a) => k.getPassword(s, a),
      setPassword: (s, a, p) => k.setPassword(s, a, p),
      deletePassword: (s, a) => k.deletePassword(s, a),
    };
  }
  const choice = ctx.env.SVC_KEYCHAIN ?? 'auto';
  if (choice === 'file') throw new KeychainUnavailable('SVC_KEYCHAIN=file');
  const order: Array<keyof typeof BACKENDS> = choice === 'keyring' || choice === 'keytar' ? [choice] : ['keyring', 'keytar'];
  const reasons: string[] = [];
  for (const name of order) {
    try {
      return await BACKENDS[name]();
    } catch (err) {
      reasons.push(`${name === 'keyring' ? '@napi-rs/keyring' : 'keytar'} is not installed (${(err as Error).message.split('\n')[0]})`);
    }
  }
  throw new KeychainUnavailable(reasons.join('; '));
}

/** Runs one keychain call with a deadline: a locked or absent Secret Service can hang forever. */
export async function withKeychain<T>(ctx: Pick<Context, 'keytar'> & { env: Env }, call: (keychain: Keychain) => Promise<T>): Promise<T> {
  const keychain = await loadKeychain(ctx);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new KeychainUnavailable(`the keychain did not answer within ${KEYCHAIN_TIMEOUT_MS / 1000}s`)), KEYCHAIN_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([call(keychain), deadline]);
  } catch (err) {
    if (err instanceof KeychainUnavailable) throw err;
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new KeychainUnavailable(`the keychain refused: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
}

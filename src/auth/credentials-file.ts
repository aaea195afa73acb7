import { join } from 'node:path';
import { readJsonFile, updateJsonFile } from '../config/json-file.js';
import { configDir } from '../config/paths.js';

type Env = Record<string, string | undefined>;

/** The 0600 fallback where no keychain is available: { "tokens": { "<key>": "<token>" } } (keys: see tokenKeys). */
export function credentialsPath(env: Env): string {
  return join(configDir(env), 'credentials.json');
}

/** The stored tokens by key; keys are read as own properties only (see readProfiles on `__proto__`). */
function tokensOf(raw: Record<string, unknown> | undefined): Record<string, string> {
  const tokens = raw && Object.hasOwn(raw, 'tokens') ? raw.tokens : undefined;
  if (!tokens || typeof tokens !== 'object') return {};
  return Object.fromEntries(Object.entries(tokens).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export async function readFileTokens(env: Env): Promise<Record<string, string>> {
  return tokensOf(await readJsonFile(credentialsPath(env)));
}

export async function writeFileToken(env: Env, key: string, token: string): Promise<void> {
  await updateJsonFile(credentialsPath(env), 0o600, (current) => ({ ...current, tokens: { ...tokensOf(current), [key]: token } }));
}

/** Removes the tokens under `keys`; returns whether one was there. The file goes when it holds no token. */
export async function removeFileTokens(env: Env, keys: string[]): Promise<boolean> {
  const present = await readFileTokens(env);
  if (!keys.some((key) => Object.hasOwn(present, key))) return false;
  let removed = false;
  await updateJsonFile(credentialsPath(env), 0o600, (current) => {
    const tokens = tokensOf(current);
    for (const key of keys) {
      if (Object.hasOwn(tokens, key)) {
        delete tokens[key];
        removed = true;
      }
    }
    return Object.keys(tokens).length ? { ...current, tokens } : undefined;
  });
  return removed;
}

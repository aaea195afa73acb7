import { join } from 'node:path';
import { readJsonFile, removeFile, writeJsonFile } from '../config/json-file.js';
import { configDir } from '../config/paths.js';

/** The 0600 fallback where no keychain is available: { "tokens": { "<baseUrl>": "<token>" } }. */
export function credentialsPath(env: Record<string, string | undefined>): string {
  return join(configDir(env), 'credentials.json');
}

async function readTokens(env: Record<string, string | undefined>): Promise<Record<string, string>> {
  const raw = await readJsonFile(credentialsPath(env));
  const tokens = raw?.tokens;
  if (!tokens || typeof tokens !== 'object') return {};
  return Object.fromEntries(Object.entries(tokens).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export async function readFileToken(env: Record<string, string | undefined>, baseUrl: string): Promise<string | undefined> {
  return (await readTokens(env))[baseUrl];
}

export async function writeFileToken(env: Record<string, string | undefined>, baseUrl: string, token: string): Promise<void> {
  const tokens = await readTokens(env);
  tokens[baseUrl] = token;
  await writeJsonFile(credentialsPath(env), { tokens }, 0o600);
}

/** Returns whether a token was removed. */
export async function removeFileToken(env: Record<string, string | undefined>, baseUrl: string): Promise<boolean> {
  const tokens = await readTokens(env);
  if (!(baseUrl in tokens)) return false;
  delete tokens[baseUrl];
  if (Object.keys(tokens).length === 0) await removeFile(credentialsPath(env));
  else await writeJsonFile(credentialsPath(env), { tokens }, 0o600);
  return true;
}

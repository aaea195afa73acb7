import { join } from 'node:path';
import { readJsonFile, writeJsonFile } from './json-file.js';
import { configDir } from './paths.js';

export interface SvcConfig {
  baseUrl?: string;
}

export function configPath(env: Record<string, string | undefined>): string {
  return join(configDir(env), 'config.json');
}

export async function readConfig(env: Record<string, string | undefined>): Promise<SvcConfig> {
  const raw = await readJsonFile(configPath(env));
  return typeof raw?.baseUrl === 'string' ? { baseUrl: raw.baseUrl } : {};
}

export async function writeConfig(env: Record<string, string | undefined>, config: SvcConfig): Promise<void> {
  const current = (await readJsonFile(configPath(env))) ?? {};
  await writeJsonFile(configPath(env), { ...current, ...config }, 0o600);
}

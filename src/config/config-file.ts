import { join } from 'node:path';
import { readJsonFile, updateJsonFile } from './json-file.js';
import { configDir } from './paths.js';

type Env = Record<string, string | undefined>;

export const DEFAULT_PROFILE = 'default';

export interface ProfileConfig {
  baseUrl?: string;
}

export function configPath(env: Env): string {
  return join(configDir(env), 'config.json');
}

/**
 * The saved profiles of config.json: { "profiles": { "<name>": { "baseUrl": ... } } }. A file from
 * before profiles ({ "baseUrl": ... }) is the default profile.
 */
export async function readProfiles(env: Env): Promise<Record<string, ProfileConfig>> {
  const raw = await readJsonFile(configPath(env));
  return profilesOf(raw ?? {});
}

function profilesOf(raw: Record<string, unknown>): Record<string, ProfileConfig> {
  const out: Record<string, ProfileConfig> = {};
  if (typeof raw.baseUrl === 'string') out[DEFAULT_PROFILE] = { baseUrl: raw.baseUrl };
  const profiles = raw.profiles;
  if (profiles && typeof profiles === 'object') {
    for (const [name, value] of Object.entries(profiles as Record<string, unknown>)) {
      const baseUrl = (value as { baseUrl?: unknown } | null)?.baseUrl;
      out[name] = typeof baseUrl === 'string' ? { baseUrl } : {};
    }
  }
  return out;
}

export async function readProfile(env: Env, profile: string): Promise<ProfileConfig> {
  return (await readProfiles(env))[profile] ?? {};
}

/** Saves (or, with undefined, removes) one profile; other profiles and unknown keys stay as they were. */
export async function writeProfile(env: Env, profile: string, config: ProfileConfig | undefined): Promise<void> {
  await updateJsonFile(configPath(env), 0o600, (current) => {
    const profiles = profilesOf(current);
    if (config) profiles[profile] = config;
    else delete profiles[profile];
    const { baseUrl: _legacy, profiles: _old, ...rest } = current;
    return { ...rest, profiles };
  });
}

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
 * before profiles ({ "baseUrl": ... }) is the default profile. A Map, because a profile may be
 * called `__proto__`, `constructor` or `toString`: as keys of a plain object those are the
 * object's own machinery, not data.
 */
export async function readProfiles(env: Env): Promise<Map<string, ProfileConfig>> {
  const raw = await readJsonFile(configPath(env));
  return profilesOf(raw ?? {});
}

function profilesOf(raw: Record<string, unknown>): Map<string, ProfileConfig> {
  const out = new Map<string, ProfileConfig>();
  if (typeof raw.baseUrl === 'string') out.set(DEFAULT_PROFILE, { baseUrl: raw.baseUrl });
  const profiles = Object.hasOwn(raw, 'profiles') ? raw.profiles : undefined;
  if (profiles && typeof profiles === 'object') {
    for (const [name, value] of Object.entries(profiles as Record<string, unknown>)) {
      const baseUrl = value && typeof value === 'object' && Object.hasOwn(value, 'baseUrl') ? (value as { baseUrl: unknown }).baseUrl : undefined;
      out.set(name, typeof baseUrl === 'string' ? { baseUrl } : {});
    }
  }
  return out;
}

export async function readProfile(env: Env, profile: string): Promise<ProfileConfig> {
  return (await readProfiles(env)).get(profile) ?? {};
}

/** Saves (or, with undefined, removes) one profile; other profiles and unknown keys stay as they were. */
export async function writeProfile(env: Env, profile: string, config: ProfileConfig | undefined): Promise<void> {
  await updateJsonFile(configPath(env), 0o600, (current) => {
    const profiles = profilesOf(current);
    if (config) profiles.set(profile, config);
    else profiles.delete(profile);
    const { baseUrl: _legacy, profiles: _old, ...rest } = current;
    // fromEntries defines every name as an own property, `__proto__` included.
    return { ...rest, profiles: Object.fromEntries(profiles) };
  });
}

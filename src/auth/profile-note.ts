import { DEFAULT_PROFILE } from '../config/config-file.js';

/** ", profile prod" where a profile other than the default is in use; nothing for the default, so the common case reads as before profiles. */
export function profileNote(profile: string, before = ', profile ', after = ''): string {
  return profile === DEFAULT_PROFILE ? '' : `${before}${profile}${after}`;
}

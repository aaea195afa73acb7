import { readFileSync } from 'node:fs';

declare const __SVC_VERSION__: string | undefined;

/** Injected at bundle time; read from package.json when running from tsc output or sources. */
export const VERSION: string =
  typeof __SVC_VERSION__ === 'string'
    ? __SVC_VERSION__
    : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const USER_AGENT = `svc/${VERSION} node/${process.versions.node}`;

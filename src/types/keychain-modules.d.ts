// The keychain bindings are optional native modules, loaded lazily (src/auth/keychain.ts): the build
// must not need them installed. Only the keytar-shaped calls svc makes are declared.
declare module 'keytar' {
  export function getPassword(service: string, account: string): Promise<string | null>;
  export function setPassword(service: string, account: string, password: string): Promise<void>;
  export function deletePassword(service: string, account: string): Promise<boolean>;
}

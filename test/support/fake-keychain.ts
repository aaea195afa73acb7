import type { KeytarLike } from '../../src/context.js';

/** An in-memory keytar that records its calls; `onSet` lets a test look at the world at store time. */
export class FakeKeychain implements KeytarLike {
  readonly entries = new Map<string, string>();
  readonly calls: string[] = [];
  onSet: (() => void) | undefined;

  static key(service: string, account: string): string {
    return `${service}|${account}`;
  }

  get(account: string, service = 'svc'): string | undefined {
    return this.entries.get(FakeKeychain.key(service, account));
  }

  put(account: string, password: string, service = 'svc'): void {
    this.entries.set(FakeKeychain.key(service, account), password);
  }

  async getPassword(service: string, account: string): Promise<string | null> {
    this.calls.push(`get ${service} ${account}`);
    return this.entries.get(FakeKeychain.key(service, account)) ?? null;
  }

  async setPassword(service: string, account: string, password: string): Promise<void> {
    this.calls.push(`set ${service} ${account}`);
    this.onSet?.();
    this.entries.set(FakeKeychain.key(service, account), password);
  }

  async deletePassword(service: string, account: string): Promise<boolean> {
    this.calls.push(`delete ${service} ${account}`);
    return this.entries.delete(FakeKeychain.key(service, account));
  }
}

/** A Secret Service that never answers (locked keyring waiting on a prompt nobody sees). */
export const hangingKeychain: KeytarLike = {
  getPassword: () => new Promise(() => {}),
  setPassword: () => new Promise(() => {}),
  deletePassword: () => new Promise(() => {}),
};

/** A Secret Service that refuses every call, as keytar does on a headless box without D-Bus. */
export const refusingKeychain: KeytarLike = {
  getPassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
  setPassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
  deletePassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
};

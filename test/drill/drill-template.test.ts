/**
 * The scratch cluster's template (src/drill/template.ts): initdb's data directory for a server build
 * is kept under the user's cache directory and copied by later runs, which then set their own random
 * password. The template holds no password; a cache that cannot be written changes nothing but speed.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg-cluster.js';
import { DrillE2e } from '../support/drill-e2e.js';

const skip = pgSkipReason();
const READY_WAIT_MS = 600_000;

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

describe.skipIf(!!skip)('the scratch cluster template', () => {
  const h = new DrillE2e();
  beforeAll(() => h.start(), 180_000);
  afterAll(() => h.stop());

  it('the first drill leaves a template without a password; the next ones start from it and still pass', async () => {
    const cache = h.workDir();
    const env = { XDG_CACHE_HOME: cache };
    const first = await h.drill(['db_orders'], { env });
    expect(first.code, first.stderr).toBe(0);
    const root = join(cache, 'svc', 'scratch-templates');
    const [template] = readdirSync(root);
    expect(template).toMatch(/^\d+\.\d+-[0-9a-f]{16}$/);
    expect(existsSync(join(root, template!, 'ready'))).toBe(true);
    // pg_authid keeps a password as a SCRAM verifier in clear text: none may be in the template.
    for (const file of files(join(root, template!, 'data', 'global'))) {
      expect(readFileSync(file).includes('SCRAM-SHA-256$'), file).toBe(false);
    }
    // Nothing of a started server: the copy is taken before the server runs.
    expect(existsSync(join(root, template!, 'data', 'postmaster.pid'))).toBe(false);

    const second = await h.drill(['db_orders', 'db_billing', '--parallel', '2'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(readdirSync(root)).toEqual([template]);
  }, 240_000);

  it('a corrupt template is found at once and made again: the drill passes without waiting out the start-up timeout', async () => {
    const cache = h.workDir();
    // A start-up timeout far past this test's own: a drill that waited it out would time the test out.
    const env = { XDG_CACHE_HOME: cache, SVC_TEST_READY_TIMEOUT_MS: String(READY_WAIT_MS) };
    const first = await h.drill(['db_orders'], { env });
    expect(first.code, first.stderr).toBe(0);
    const root = join(cache, 'svc', 'scratch-templates');
    const [template] = readdirSync(root);
    // A server cannot start without its control file: every copy of this template fails at once.
    rmSync(join(root, template!, 'data', 'global', 'pg_control'));

    const second = await h.drill(['db_orders'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(readdirSync(root)).toEqual([template]);
    expect(existsSync(join(root, template!, 'data', 'global', 'pg_control'))).toBe(true);
  }, 240_000);

  it('a cache directory that cannot be written: the drill passes all the same', async () => {
    const blocked = join(h.workDir(), 'not-a-dir');
    writeFileSync(blocked, 'a file where the cache directory would go');
    const r = await h.drill(['db_orders'], { env: { XDG_CACHE_HOME: blocked } });
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
});

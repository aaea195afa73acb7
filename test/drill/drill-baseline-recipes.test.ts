/**
 * The README's recipes for where a drill's --baseline comes from in CI ("The baseline in CI"), each
 * tried against the files as the CI job leaves them: the previous run's merged report downloaded by
 * `gh run download --name drill-report --dir baseline` (or restored from the Actions cache) on GitHub,
 * GitLab's artifacts zip of the previous pipeline unpacked into previous/, and a Kubernetes volume
 * where the merge step pointed `baseline` at the night's organization report. The recipe's own shell
 * text (verbatim from the README) picks the baseline, on the first run too, when there is none.
 * The built CLI against the sandbox and a real scratch cluster. Skips without PostgreSQL, except under CI.
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrillDocument } from '../../src/drill/document.js';
import { svc } from '../e2e/helpers.js';
import { BIN } from '../support/built-cli.js';
import { DrillE2e, expectNothingLeft } from '../support/drill-e2e.js';
import { pgSkipReason } from '../support/pg-cluster.js';

const skip = pgSkipReason();
if (skip) console.warn(`test/drill/drill-baseline-recipes.test.ts skipped: ${skip}`);

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** Each recipe: the shell text that picks the baseline (as the README has it), and the files the CI job leaves. */
const RECIPES = [
  {
    name: 'GitHub Actions: gh run download --name drill-report --dir baseline (or the cache restored into baseline/)',
    pick: '$(test -f baseline/drill.json && echo --baseline baseline)',
    layout: (root: string, merged: string) => cpSync(merged, join(root, 'baseline'), { recursive: true }),
  },
  {
    name: "GitLab CI: the previous pipeline's artifacts zip unpacked into previous/",
    pick: '$(test -f previous/drill-report/drill.json && echo --baseline previous/drill-report)',
    layout: (root: string, merged: string) => cpSync(merged, join(root, 'previous', 'drill-report'), { recursive: true }),
  },
  {
    name: "Kubernetes: /reports/baseline, a link to last night's organization report on the volume",
    pick: '$(test -f /reports/baseline/drill.json && echo --baseline /reports/baseline)',
    layout: (root: string, merged: string) => {
      cpSync(merged, join(root, 'reports', '2026-11-27', 'organization'), { recursive: true });
      mkdirSync(join(root, 'reports', '2026-11-28'), { recursive: true });
      symlinkSync('2026-11-27/organization', join(root, 'reports', 'baseline'));
    },
  },
] as const;

describe.skipIf(!!skip)("the README's recipes for the baseline in CI", { timeout: 240_000 }, () => {
  const h = new DrillE2e();
  /** The previous run's organization report: a shard's report, merged, as the merge job leaves it. */
  let merged = '';

  beforeAll(async () => {
    await h.start();
    const shard = join(h.workDir(), 'drill-report-1');
    const r = await h.drill(['db_orders', 'db_billing', '--shard', '1/1', '--report', shard]);
    expect(r.code, r.stderr).toBe(0);
    merged = join(h.workDir(), 'drill-report');
    const m = await svc(['restore', 'drill', 'merge', shard, '--report', merged], { env: h.sb.env('drill', {}) });
    expect(m.code, m.stderr).toBe(0);
  }, 240_000);
  afterAll(() => h.stop());

  /** The recipe's drill in `root` (its /reports made the root's reports/), through sh as the CI job runs it. */
  async function drillThere(root: string, pick: string): Promise<{ code: number; stderr: string; doc: DrillDocument['drill'] }> {
    const workDir = h.workDir();
    const script = `exec "${process.execPath}" ${BIN} restore drill db_orders db_billing --json --work-dir ${workDir} ${pick.replaceAll('/reports/', `${root}/reports/`)}`;
    const r = await execa('sh', ['-c', script], { cwd: root, env: h.sb.env('drill', {}), extendEnv: false, reject: false, timeout: 180_000 });
    expectNothingLeft(workDir, { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) } as never);
    return { code: r.exitCode ?? -1, stderr: String(r.stderr), doc: (JSON.parse(String(r.stdout)) as DrillDocument).drill };
  }

  for (const recipe of RECIPES) {
    it(`${recipe.name}: the previous report is the baseline; on the first run there is none`, async () => {
      expect(README).toContain(recipe.pick);
      const root = h.workDir();
      recipe.layout(root, merged);
      const r = await drillThere(root, recipe.pick);
      expect(r.code, r.stderr).toBe(0);
      for (const db of r.doc.databases) {
        expect(
          db.checks.find((c) => c.name === 'no_drift'),
          db.databaseId,
        ).toMatchObject({ status: 'passed', detail: expect.stringContaining('in the baseline; no table lost more than 50%') });
      }

      const first = await drillThere(h.workDir(), recipe.pick);
      expect(first.code, first.stderr).toBe(0);
      expect(first.doc.databases.flatMap((db) => db.checks.map((c) => c.name))).not.toContain('no_drift');
    });
  }
});

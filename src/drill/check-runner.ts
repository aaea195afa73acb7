import type { DatabaseDrill, DrillCheck } from './document.js';
import type { CheckDefinition, CheckState, Verdict } from './drill-checks.js';

/** Writes a database's checks into its document entry: each check in order, and the first failure as the database's. */
export class CheckRecorder {
  constructor(readonly result: DatabaseDrill) {}

  record(name: DrillCheck['name'], { status, durationMs = 0, detail, failure }: Verdict): void {
    this.result.checks.push({ name, status, durationMs, ...(detail === undefined ? {} : { detail }) });
    if (!failure || this.result.result === 'failed') return;
    Object.assign(this.result, { result: 'failed', exitCode: failure.exitCode, failure: { check: name, code: failure.code, message: failure.message } });
  }

  /** Every check skipped, saying why (no backup was selected). */
  skipAll(checks: CheckDefinition[], detail: string): void {
    for (const check of checks) this.record(check.name, { status: 'skipped', detail });
  }

  /** The checks in order: one whose needs are not met is skipped saying why; the others run. */
  async run(checks: CheckDefinition[], state: CheckState): Promise<void> {
    for (const check of checks) {
      const unmet = check.needs.find((need) => !need.met(state, check.name));
      this.record(check.name, unmet ? { status: 'skipped', detail: unmet.skip(state) } : await check.run(state));
    }
  }
}

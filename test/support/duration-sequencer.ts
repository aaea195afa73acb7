/**
 * vitest's sequencer (sequence.sequencer in vitest.config.ts): the test files known to be slow start
 * first, so that the run does not end with a few of them running alone. vitest's own order starts the
 * files that took longest in its results cache, which a clean clone does not have; it then starts the
 * largest files first, and the drills' signal files are small but slow. A file's duration comes from
 * that cache when there is one, else from test/support/test-durations.json (written by
 * tools/test-durations.mjs from a measured run); the files with neither keep vitest's order, after them.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each slow file took, by its path from the project root. */
const measured = JSON.parse(readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8')) as Record<string, number>;

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const position = new Map(base.map((spec, index) => [spec, index]));
    const known = new Map(base.map((spec) => [spec, this.duration(spec)]));
    return [...base].sort((a, b) => {
      // vitest keeps each project's files together (a non-isolated project's worker takes its next file only then).
      if (a.project !== b.project) return position.get(a)! - position.get(b)!;
      const [x, y] = [known.get(a), known.get(b)];
      if (x !== undefined && y !== undefined && x !== y) return y - x;
      if (x === undefined && y !== undefined) return 1;
      if (x !== undefined && y === undefined) return -1;
      return position.get(a)! - position.get(b)!;
    });
  }

  /** Milliseconds, or undefined when the file was never measured. */
  private duration(spec: TestSpecification): number | undefined {
    const file = relative(this.ctx.config.root, spec.moduleId);
    const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`)?.duration;
    if (cached !== undefined) return cached;
    const seconds = measured[file];
    return seconds === undefined ? undefined : seconds * 1000;
  }
}

import { describe, expect, it } from 'vitest';
import { dryRunDocumentSchema } from '../../src/core/restore/dry-run-document.js';
import { TOOLS } from '../../src/mcp/tools.js';

describe("plan_restore's output schema", () => {
  const plan = TOOLS.find((t) => t.name === 'plan_restore')!;

  it('is the dry-run document of the core (the same schemas, field by field) with the commands a person runs', () => {
    const shape = plan.output.def.shape;
    const doc = dryRunDocumentSchema.def.shape;
    expect(Object.keys(shape)).toEqual([...Object.keys(doc), 'commands', 'command', 'note']);
    for (const [key, field] of Object.entries(doc)) expect(shape[key], key).toBe(field);
    expect(plan.output.def.catchall).toBe(dryRunDocumentSchema.def.catchall);
  });
});

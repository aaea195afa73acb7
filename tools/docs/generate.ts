/** The generated files, by their path in the repository: what `npm run docs` writes and test/docs.test.ts compares. */
import { drillJsonSchema } from '../../src/drill/document-schema.js';
import { commandsMarkdown } from './markdown.js';
import { readReference } from './reference.js';
import { manPage } from './roff.js';

export const GENERATED = ['docs/commands.md', 'man/svc.1', 'docs/drill.schema.json'] as const;

export function generateDocs(): Record<(typeof GENERATED)[number], string> {
  const ref = readReference();
  return {
    'docs/commands.md': commandsMarkdown(ref),
    'man/svc.1': manPage(ref),
    // The schema `svc restore drill merge` checks its inputs with, published from the same zod schema.
    'docs/drill.schema.json': `${JSON.stringify(drillJsonSchema(), null, 2)}\n`,
  };
}

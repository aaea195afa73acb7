import { config } from 'zod/mini';
import { en } from 'zod/locales';

/**
 * zod as svc uses it: zod/mini, whose schemas are plain objects checked with functions, where a
 * classic zod schema carries some forty methods built for every node; building the schemas every
 * command loads cost a third as much time at start-up. Classic zod sets the English messages on
 * first use; mini has none of its own, so they are set here, once. Every module gets zod from here.
 */
config(en());

/**
 * A schema built on its first use, not as its module loads: zod builds each node as it is written
 * (a few hundred thousand instructions for `z.string().check(...)`), and a run that never checks a
 * value, an error body on a run that got none or an option left out, need not pay for it.
 */
export function lazySchema<T>(make: () => T): () => T {
  let schema: T | undefined;
  return () => (schema ??= make());
}

export * from 'zod/mini';

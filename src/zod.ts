import { config } from 'zod/mini';
import { en } from 'zod/locales';

/**
 * zod as svc uses it: zod/mini, whose schemas are plain objects checked with functions, where a
 * classic zod schema carries some forty methods built for every node; building the schemas every
 * command loads cost a third as much time at start-up. Classic zod sets the English messages on
 * first use; mini has none of its own, so they are set here, once. Every module gets zod from here.
 */
config(en());

export * from 'zod/mini';

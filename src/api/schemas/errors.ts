import * as z from '../../zod.js';

/** Error body of api-v1.md 2.12, parsed leniently: an error must still be reported if it is malformed. */
export const errorBody = z.lazySchema(() =>
  z.looseObject({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      requestId: z.optional(z.string()),
      requiredScope: z.optional(z.string()),
      nextAction: z.optional(z.string()),
    }),
  }),
);
export type ErrorBody = z.infer<ReturnType<typeof errorBody>>;

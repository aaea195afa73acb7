import * as z from 'zod';

/** Error body of api-v1.md 2.12, parsed leniently: an error must still be reported if it is malformed. */
export const errorBody = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    requestId: z.string().optional(),
    requiredScope: z.string().optional(),
    nextAction: z.string().optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBody>;

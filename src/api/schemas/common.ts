import * as z from '../../zod.js';

/** Responses tolerate unknown fields (the alpha surface may grow) and keep them for --json. */
export const responseObject = z.looseObject;
/** Request bodies are strict: only the fields api-v1.md lists. */
export const requestObject = z.strictObject;

export const id = z.string().check(z.minLength(1));
export const timestamp = z.iso.datetime({ offset: true, local: false });
export const sha256Hex = z.string().check(z.regex(/^[a-f0-9]{64}$/, 'expected 64 lower-case hex characters'));
export const nonNegativeInt = z.int().check(z.minimum(0));
export const retentionDays = z.int().check(z.minimum(1), z.maximum(365));

/** List pages may carry the next-page cursor; absent or null on the last page (cli-contract 6). */
export const nextCursor = z.optional(z.nullable(z.string().check(z.minLength(1))));

import * as z from 'zod';

/** Responses tolerate unknown fields (the alpha surface may grow) and keep them for --json. */
export const responseObject = z.looseObject;
/** Request bodies are strict: only the fields api-v1.md lists. */
export const requestObject = z.strictObject;

export const id = z.string().min(1);
export const timestamp = z.iso.datetime({ offset: true, local: false });
export const sha256Hex = z.string().regex(/^[a-f0-9]{64}$/, 'expected 64 lower-case hex characters');
export const nonNegativeInt = z.int().min(0);
export const retentionDays = z.int().min(1).max(365);

/** List pages may carry the next-page cursor; absent or null on the last page (cli-contract 6). */
export const nextCursor = z.string().min(1).nullable().optional();

/**
 * One function per operation of api-v1.md section 4: method, path, request and response schema.
 * They live in operations/<resource>.ts, so a command builds the zod schemas of its own resource
 * only; this module gathers them all.
 */
export type { PageParams } from './operations/common.js';
export * from './operations/backups.js';
export * from './operations/databases.js';
export * from './operations/destinations.js';
export * from './operations/evidence.js';
export * from './operations/profile.js';
export * from './operations/recovery.js';
export * from './operations/restores.js';
export * from './operations/tools.js';

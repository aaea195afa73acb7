/**
 * The moment the fixtures are written relative to: their "5h ago" is 5 h before this. The unit tests'
 * fake clock stands here too. The sandbox can move every fixture timestamp by (now - epoch), so its
 * data reads as recent whenever it runs.
 */
export const FIXTURE_EPOCH = new Date('2026-11-21T12:00:00Z');

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export type JsonReviver = (key: string, value: unknown) => unknown;

/** A JSON.parse reviver that moves every timestamp by `shiftMs`; everything else is left as written. */
export function shiftTimestamps(shiftMs: number): JsonReviver | undefined {
  if (shiftMs === 0) return undefined;
  return (_key, value) =>
    typeof value === 'string' && ISO_TIMESTAMP.test(value) ? new Date(Date.parse(value) + shiftMs).toISOString().replace('.000Z', 'Z') : value;
}

export const isoSeconds = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

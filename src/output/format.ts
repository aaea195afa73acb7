const UNITS: Array<[string, number]> = [
  ['y', 365 * 24 * 3600],
  ['d', 24 * 3600],
  ['h', 3600],
  ['m', 60],
  ['s', 1],
];

/** "3h ago" / "in 2d": the age beside a timestamp shown as given. */
export function relativeAge(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const diff = Math.round((now.getTime() - then) / 1000);
  const abs = Math.abs(diff);
  if (abs < 5) return 'just now';
  for (const [unit, seconds] of UNITS) {
    if (abs >= seconds) {
      const n = Math.floor(abs / seconds);
      return diff >= 0 ? `${n}${unit} ago` : `in ${n}${unit}`;
    }
  }
  return '';
}

export function timestampWithAge(iso: string | null | undefined, now: Date): string {
  if (!iso) return '-';
  const age = relativeAge(iso, now);
  return age ? `${iso} (${age})` : iso;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return i === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[i]} (${bytes} bytes)`;
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

export function orDash(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}

/**
 * The colour of a state in a table or a key/value block: green for what went well, red for what
 * failed, yellow for what needs a look (degraded, paused, drifted).
 */
export function stateStyle(state: string): 'green' | 'red' | 'yellow' | undefined {
  if (['completed', 'passed', 'active', 'verified', 'complete'].includes(state)) return 'green';
  if (state.startsWith('failed') || ['timed_out', 'cancelled'].includes(state)) return 'red';
  if (['degraded', 'paused', 'connection_drifted', 'broken', 'partial'].includes(state)) return 'yellow';
  return undefined;
}

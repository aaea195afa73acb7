import { hostname } from 'node:os';

/**
 * What a drill writes as the comment of every database and role it creates on a scratch server
 * (cli-contract 9.12): the svc process that owns it, so a later drill can tell an orphan (its owner
 * process no longer exists on this host) from another run's live objects. A comment needs no table.
 */
export interface DrillMarker {
  pid: number;
  host: string;
  startedAt: string;
}

const PREFIX = 'svc restore drill:';

export function drillMarker(now: Date = new Date(), pid: number = process.pid): string {
  return `${PREFIX} pid=${pid} host=${hostname()} started=${now.toISOString()}`;
}

/** The marker of a comment svc wrote; undefined for any other comment. */
export function parseDrillMarker(comment: string | null | undefined): DrillMarker | undefined {
  const m = /^svc restore drill: pid=(\d+) host=(\S+) started=(\S+)$/.exec(comment ?? '');
  return m ? { pid: Number(m[1]), host: m[2]!, startedAt: m[3]! } : undefined;
}

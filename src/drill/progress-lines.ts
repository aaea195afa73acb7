import { heartbeat, type Heartbeat } from '../ui/heartbeat.js';
import { elapsed } from '../ui/reporter.js';

export interface ProgressSink {
  progress: (databaseId: string, text: string) => void;
  /** A command line for the user to run (`kept: psql ...`), printed so that it pastes whole. */
  command: (databaseId: string, label: string, command: string) => void;
  /** Without a terminal: a database whose phase goes a minute without a line says it is still running (cli-contract 4). */
  heartbeat: boolean;
}

/**
 * The drill's progress lines, one per database and phase; with `heartbeat`, a database that goes a
 * minute without one repeats its last, with the time it has been running.
 */
export function progressLines(host: ProgressSink): { progress: (id: string, text: string) => void; finish: (id: string) => void; stop: () => void } {
  const beats = new Map<string, { last: string; since: number; beat: Heartbeat }>();
  return {
    progress(id, text) {
      host.progress(id, text);
      if (!host.heartbeat) return;
      let state = beats.get(id);
      if (!state) {
        const fresh = { last: text, since: performance.now() } as { last: string; since: number; beat: Heartbeat };
        fresh.beat = heartbeat(() => host.progress(id, `${fresh.last} (still running, ${elapsed(performance.now() - fresh.since)})`));
        beats.set(id, fresh);
        state = fresh;
      }
      Object.assign(state, { last: text, since: performance.now() });
      state.beat.touch();
    },
    /** A database's drill is over: its verdict was its last line. */
    finish(id) {
      beats.get(id)?.beat.stop();
    },
    stop() {
      for (const { beat } of beats.values()) beat.stop();
    },
  };
}

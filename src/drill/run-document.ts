import { InterruptedError } from '../errors.js';
import { blankDrill, type DatabaseDrill, type DrillDocument } from './document.js';
import type { IsolationLevel } from './isolation.js';

/** What the run's document says besides its databases. */
export interface RunFacts {
  startedAt: Date;
  finishedAt: Date;
  shard: string | null;
  scratch: 'auto' | 'dsn';
  serverVersion: string | null;
  isolation: IsolationLevel | null;
}

/** The drill document of a run (cli-contract 9, step 7): passed, failed and, apart, the databases not run. */
export function drillDocument(facts: RunFacts, databases: DatabaseDrill[]): DrillDocument {
  const count = (result: DatabaseDrill['result']) => databases.filter((d) => d.result === result).length;
  const notRun = count('not_run');
  return {
    drill: {
      startedAt: facts.startedAt.toISOString(),
      finishedAt: facts.finishedAt.toISOString(),
      shard: facts.shard,
      scratch: facts.scratch,
      serverVersion: facts.serverVersion,
      isolation: facts.isolation,
      databases,
      passed: databases.length - count('failed') - notRun,
      failed: count('failed'),
      ...(notRun ? { notRun } : {}),
    },
  };
}

/**
 * A database the run did not drill to the end (cli-contract 9.18): a signal came before its drill
 * finished (`interrupted`), or --deadline had passed before it could start (`deadline`).
 */
export function notRun(
  db: { id: string; name: string | null },
  check: 'interrupted' | 'deadline',
  code: string,
  exitCode: number,
  message: string,
): DatabaseDrill {
  return { ...blankDrill(db, 'not_run', exitCode), failure: { check, code, message } };
}

/** A drill ended by SIGINT, SIGTERM or SIGHUP, after its clean-up, with the document of what it did: the report is still written. */
export class DrillInterrupted extends InterruptedError {
  constructor(
    message: string,
    readonly doc: DrillDocument,
  ) {
    super(message);
  }
}

/** SIGHUP in each phase of a drill, with --scratch auto and on an operator's server (--scratch <dsn>), a second signal while the cluster stops, --dry-run and --parallel 2; the suite is signals-phases-suite.ts. */
import { drillSignalPhases } from './signals-phases-suite.js';

drillSignalPhases('SIGHUP');

/** SIGINT in each phase of a drill, with --scratch auto and on an operator's server (--scratch <dsn>); the suite is signals-phases-suite.ts. */
import { drillSignalPhases } from './signals-phases-suite.js';

drillSignalPhases('SIGINT');

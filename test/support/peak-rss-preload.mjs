// Preloaded into the built CLI (NODE_OPTIONS=--import=<this file's URL>) by test/support/peak-rss.ts:
// on exit, writes the process's peak resident set size (KiB, getrusage's ru_maxrss) to the file
// named by SVC_TEST_PEAK_RSS_FILE. bin/svc ends with process.exit(), which still fires 'exit'.
import { writeFileSync } from 'node:fs';

const file = process.env.SVC_TEST_PEAK_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));

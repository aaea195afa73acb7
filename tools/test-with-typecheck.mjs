/**
 * Last step of `npm test`: the type-check (tsc over src and test, about 20 s of CPU) runs beside
 * `vitest run` instead of before it, at a lower priority, since most of the suite's time is spent
 * waiting on PostgreSQL and child processes. The command still fails when either fails: tsc's
 * errors are printed after vitest's report. Arguments go to vitest.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exited, spawnWithPrivateTmp } from './private-tmp.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);

// Without the machine's NODE_EXTRA_CA_CERTS, as vitest.config.ts says why: read at every Node start, needed by no test.
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
const tsc = spawn(bin('tsc'), ['-p', 'tsconfig.test.json'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
const tscOutput = [];
tsc.stdout.on('data', (c) => tscOutput.push(c));
tsc.stderr.on('data', (c) => tscOutput.push(c));
try {
  setPriority(tsc.pid, 10);
} catch {
  // Not allowed here: it runs at the same priority.
}
// Its temporary files (clusters, work dirs, downloads) in a tmpfs of its own where it can: tools/private-tmp.mjs says why.
const vitest = spawnWithPrivateTmp(bin('vitest'), ['run', ...process.argv.slice(2)], { cwd: root, env, stdio: 'inherit' });

const [typecheck, tests] = await Promise.all([exited(tsc), exited(vitest)]);
if (typecheck !== 0) {
  process.stderr.write(`\nnpm test: the type-check failed (tsc -p tsconfig.test.json, exit ${typecheck}):\n${Buffer.concat(tscOutput).toString('utf8')}`);
}
process.exitCode = tests !== 0 ? tests : typecheck;

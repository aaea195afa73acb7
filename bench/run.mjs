/**
 * `npm run bench [-- --quick]`: builds (npm script), then runs every row and prints one table:
 * figure, baseline, ratio, target, pass/fail. Each row is also a script of its own
 * (`node --import tsx bench/<row>.mjs [--quick]`: the bench imports TypeScript sources through tsx,
 * and the svc it times is the bundle in dist/, copied when the bench starts so that a rebuild by
 * other work on the machine cannot change it mid-run: bench/lib/common.mjs SVC). All fixtures
 * (artifact files, a PostgreSQL cluster, a dump, servers, the long-link proxy) live in temp dirs and
 * child processes that are removed at the end, on failure and on Ctrl-C.
 * The start-up rows run under each Node line (this node, and 22 and 24 from tools/node-lines.mjs)
 * with NODE_EXTRA_CA_CERTS unset; the long-link rows go through bench/lib/long-link-proxy.mjs.
 * Needs curl, sha256sum, tee, openssl, GNU time (/usr/bin/time) and PostgreSQL client and server
 * binaries; on Debian/Ubuntu: apt-get install -y curl time openssl postgresql.
 * Exit status 1 when a target is missed or a row could not run.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { cleanupAll, GNU_TIME, which } from './lib/common.mjs';
import { benchNodeLines } from './lib/node-lines.mjs';
import { printTable } from './lib/table.mjs';
import * as download from './download.mjs';
import * as drill from './drill.mjs';
import * as drillOrg from './drill-org.mjs';
import * as list from './list.mjs';
import * as paging from './paging.mjs';
import * as pagingCpu from './paging-cpu.mjs';
import * as restore from './restore.mjs';
import * as startup from './startup.mjs';

const quick = process.argv.includes('--quick');
const log = (m) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}\n`);
const started = performance.now();

const version = (cmd, args = ['--version']) => {
  if (!which(cmd)) return `${cmd} missing`;
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')[0]
      .trim();
  } catch {
    return `${cmd} present`;
  }
};

const lines = benchNodeLines(log);
process.stdout.write(
  [
    `svc bench${quick ? ' (--quick: fewer runs, smaller files)' : ''}`,
    `node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM; ` +
      `load average at start ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    `${version('curl')}; ${version('openssl', ['version'])}; GNU time: ${GNU_TIME ? 'yes' : 'missing (apt-get install -y time)'}; ${version('pg_restore')}`,
    `Node lines of the start-up rows: ${lines.map((l) => (l.error ? `${l.version} (not run: ${l.error})` : l.version)).join(', ')}.`,
    'Start-up rows (svc --version, --help, databases list) run with NODE_EXTRA_CA_CERTS unset for svc and node -e 0 alike' +
      `${process.env.NODE_EXTRA_CA_CERTS ? ' (this environment sets it: node would parse that CA file at every start)' : ''}.`,
    'Long link: bench/lib/long-link-proxy.mjs, 25 ms each way, 50 MB/s per connection and direction.',
    'Ratios compare medians of interleaved runs measured in this run, on this machine.',
    '',
  ].join('\n') + '\n',
);

const rows = [];
try {
  for (const [name, mod] of Object.entries({ startup, list, download, paging, pagingCpu, restore, drill, drillOrg })) {
    log(`${name}: start`);
    try {
      rows.push(...(await mod.run({ quick, log })));
    } catch (err) {
      log(`${name}: could not run: ${err?.message ?? err}`);
      rows.push({
        what: `${name} (not run)`,
        figure: '-',
        baseline: '-',
        ratio: '-',
        targetText: '-',
        pass: undefined,
        note: String(err?.message ?? err).split('\n')[0],
      });
    } finally {
      await cleanupAll();
    }
  }
} finally {
  await cleanupAll();
}

process.stdout.write('\n');
printTable(rows);
const failed = rows.filter((r) => r.pass !== true);
process.stdout.write(
  `\n${rows.length - failed.length} of ${rows.length} targets met in ${((performance.now() - started) / 1000).toFixed(0)} s; load average at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}.\n`,
);
process.exitCode = failed.length ? 1 : 0;

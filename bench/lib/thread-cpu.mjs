/**
 * CPU seconds by thread of this process, for the download rows: wall time on a shared machine says
 * little, CPU time per thread says where the work is. Linux only (/proc/self/task); elsewhere,
 * and for the total, getrusage (which counts threads that have already ended).
 *
 * Threads are sampled every 20 ms and the last sample of each is kept, so a thread that ends (the
 * hashing thread, terminated with the download) keeps what it had used up to its last sample.
 * Node names none of its threads apart from the main one, so the hashing thread is told apart by
 * its user time: it is the non-main thread with the most. The rest are libuv's pool (file writes)
 * and V8's helpers (garbage collection, compilation).
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK = 100; // USER_HZ on Linux

export function sampleThreadCpu() {
  const threads = new Map();
  const sample = () => {
    let tids;
    try {
      tids = readdirSync('/proc/self/task');
    } catch {
      return;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        threads.set(tid, { user: Number(f[11]) / TICK, sys: Number(f[12]) / TICK });
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  };
  sample();
  const timer = setInterval(sample, 20).unref();
  return {
    /** CPU seconds: { main, hash, others, total }; main, hash and others as { user, sys }. */
    stop() {
      clearInterval(timer);
      sample();
      const main = threads.get(String(process.pid)) ?? { user: 0, sys: 0 };
      const rest = [...threads].filter(([tid]) => tid !== String(process.pid)).map(([, t]) => t);
      rest.sort((a, b) => b.user - a.user);
      const hash = rest.shift() ?? { user: 0, sys: 0 };
      const others = rest.reduce((a, t) => ({ user: a.user + t.user, sys: a.sys + t.sys }), { user: 0, sys: 0 });
      const usage = process.resourceUsage();
      return { main, hash, others, total: (usage.userCPUTime + usage.systemCPUTime) / 1e6 };
    },
  };
}

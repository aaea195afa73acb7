/**
 * A userspace "long link" for the bench (the kernel here has no netem): a TCP proxy between the
 * client and a loopback server that
 *  - caps EACH connection at RATE bytes/s in each direction (a token bucket per connection and
 *    direction, BURST bytes deep), and
 *  - delays every chunk by DELAY ms in each direction after it leaves the bucket, in order, with
 *    timers (no connection ever waits for another's), so a request/response exchange costs one
 *    round trip of 2 x DELAY;
 *  - holds a new connection's first client bytes for one extra round trip, as a real TCP handshake
 *    over such a link would.
 * Backpressure: a direction stops reading its source while more than HIGH_WATER bytes are queued
 * in it (bucket backlog, delay line and the destination's write buffer), so memory stays bounded
 * and a slow reader slows the sender as it would over TCP. HIGH_WATER is well above the
 * bandwidth-delay product (RATE x DELAY), so the queue never throttles a connection below RATE.
 * No dependency: node:net only.
 *
 * Usage: node bench/lib/long-link-proxy.mjs <target-port> [delay-ms=25] [rate-bytes-per-s=50000000]
 * Prints {"base": "http://127.0.0.1:<port>", "port": <port>, ...} and serves until stdin closes or
 * SIGTERM. Also importable: startLongLinkProxy().
 */
import { createServer, connect } from 'node:net';
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;

/**
 * One direction of one connection: src's bytes go to dst through the token bucket and the delay
 * line. Returns a function that drops what is still queued (the destination is gone).
 */
function shapedPipe(src, dst, { delayMs, rate, burst, highWater, notBefore = 0 }) {
  /** {at: ms (performance.now()), chunk: Buffer | null (null: end of stream)} in order of `at`. */
  const queue = [];
  let queuedBytes = 0;
  let tokens = burst;
  let refilled = performance.now();
  let lastAt = 0;
  let timer;
  let ended = false;

  const resumeIfRoom = () => {
    if (src.isPaused() && !src.destroyed && queuedBytes + dst.writableLength < highWater / 2) src.resume();
  };

  const flush = () => {
    timer = undefined;
    if (dst.destroyed) return;
    const now = performance.now();
    // setTimeout rounds to whole ms: anything due within half a ms goes now.
    while (queue.length && queue[0].at <= now + 0.5) {
      const { chunk } = queue.shift();
      if (chunk === null) {
        dst.end();
        return;
      }
      queuedBytes -= chunk.length;
      dst.write(chunk);
    }
    resumeIfRoom();
    schedule();
  };

  const schedule = () => {
    if (timer || !queue.length) return;
    timer = setTimeout(flush, Math.max(0, queue[0].at - performance.now()));
  };

  const push = (at, chunk) => {
    lastAt = Math.max(lastAt, at);
    queue.push({ at: lastAt, chunk });
    schedule();
  };

  src.on('data', (chunk) => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - refilled) * rate) / 1000);
    refilled = now;
    tokens -= chunk.length;
    // Leaves the bucket once the debt is paid; then crosses the link.
    const leaves = Math.max(notBefore, now + (tokens < 0 ? (-tokens * 1000) / rate : 0));
    queuedBytes += chunk.length;
    push(leaves + delayMs, chunk);
    if (queuedBytes + dst.writableLength > highWater) src.pause();
  });
  src.on('end', () => {
    ended = true;
    push(Math.max(notBefore, performance.now()) + delayMs, null);
  });
  dst.on('drain', resumeIfRoom);

  return {
    drop() {
      clearTimeout(timer);
      timer = undefined;
      queue.length = 0;
      queuedBytes = 0;
    },
    get ended() {
      return ended;
    },
  };
}

/**
 * Starts the proxy on 127.0.0.1 (port 0: a free one) in front of 127.0.0.1:targetPort. Resolves
 * with { port, base, stats(), close() }.
 */
export async function startLongLinkProxy({
  targetPort,
  targetHost = '127.0.0.1',
  delayMs = 25,
  rate = 50e6,
  burst = 64 * 1024,
  highWater = 4 * MiB,
  port = 0,
} = {}) {
  const stats = { connections: 0, bytesToClient: 0, bytesToServer: 0 };
  const sockets = new Set();
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    stats.connections += 1;
    const accepted = performance.now();
    const upstream = connect({ host: targetHost, port: targetPort, allowHalfOpen: true, noDelay: true });
    sockets.add(client);
    sockets.add(upstream);
    const opts = { delayMs, rate, burst, highWater };
    // The client's first bytes could only leave after the SYN / SYN-ACK round trip.
    const up = shapedPipe(client, upstream, { ...opts, notBefore: accepted + 2 * delayMs });
    const down = shapedPipe(upstream, client, opts);
    client.on('data', (c) => (stats.bytesToServer += c.length));
    upstream.on('data', (c) => (stats.bytesToClient += c.length));
    const kill = () => {
      up.drop();
      down.drop();
      client.destroy();
      upstream.destroy();
    };
    client.on('error', kill);
    upstream.on('error', kill);
    // The client is gone: nothing more can reach it, and nothing it sent matters any more.
    client.on('close', () => {
      sockets.delete(client);
      kill();
    });
    // The server is gone: what it sent still crosses the link (and ends the client's side); what
    // the client sends from now on has nowhere to go.
    upstream.on('close', (hadError) => {
      sockets.delete(upstream);
      up.drop();
      if (hadError || !down.ended) client.destroy();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = server.address().port;
  return {
    port: actual,
    base: `http://127.0.0.1:${actual}`,
    stats: () => ({ ...stats }),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [targetArg, delayArg = '25', rateArg = '50000000'] = process.argv.slice(2);
  const targetPort = Number(targetArg);
  if (!Number.isInteger(targetPort) || targetPort <= 0) {
    process.stderr.write('usage: node bench/lib/long-link-proxy.mjs <target-port> [delay-ms=25] [rate-bytes-per-s=50000000]\n');
    process.exit(2);
  }
  const delayMs = Number(delayArg);
  const rate = Number(rateArg);
  const proxy = await startLongLinkProxy({ targetPort, delayMs, rate });
  process.stdout.write(`${JSON.stringify({ base: proxy.base, port: proxy.port, targetPort, delayMs, rate })}\n`);
  const stop = () => proxy.close().then(() => process.exit(0));
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
}

/**
 * A port for a test server that must be told its port before it starts (PostgreSQL, Prometheus and
 * its exporters), or for a URL that must refuse connections.
 *
 * The port comes from below the kernel's ephemeral range, never from a listen on port 0 that is closed
 * again: the kernel hands the ports of that range to every listen(0) and connect() of the machine, so
 * a server told such a port competes for it with the suite's other servers and connections, whichever
 * binds first. Below the range, only another server picked here can take the same port, and every
 * caller starts its server again on another port when that happens.
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';

/** Where picking starts: above the common fixed ports of local services (5432, 8080, 9090...). */
const LOWEST = 20_000;
const PROBES = 20;

/** The kernel's ephemeral port range (ip_local_port_range), or Linux's default where it cannot be read. */
export function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low!, high!];
  } catch {
    // not Linux: the default below
  }
  return [32_768, 60_999];
}

/** Whether a server can listen on 127.0.0.1:`port` now (it is closed again before this returns). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A port of 127.0.0.1 that nothing listens on, outside the kernel's ephemeral range. */
export async function freePort(): Promise<number> {
  const [low, high] = ephemeralRange();
  const below = low - LOWEST;
  const above = 65_535 - high;
  if (below < 1000 && above < 1000) throw new Error(`test ports: the ephemeral range ${low}-${high} leaves no room outside it`);
  for (let probe = 0; probe < PROBES; probe++) {
    const port = below >= above ? LOWEST + Math.floor(Math.random() * below) : high + 1 + Math.floor(Math.random() * above);
    if (await canListen(port)) return port;
  }
  throw new Error(`test ports: ${PROBES} ports outside the ephemeral range ${low}-${high} were all taken`);
}

/** Listens on 127.0.0.1, on a port the kernel picks; resolves to that port, or rejects with the listen error. */
export function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

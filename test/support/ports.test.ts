import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRange, freePort, listenOnLoopback } from './ports.js';

describe('test ports', () => {
  it('freePort gives a port outside the kernel ephemeral range, one a server can then listen on', async () => {
    const [low, high] = ephemeralRange();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port < low || port > high, `${port} inside ${low}-${high}`).toBe(true);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('listenOnLoopback resolves to the port the server listens on, and rejects with the listen error', async () => {
    const server = createServer();
    const port = await listenOnLoopback(server);
    expect(server.address()).toMatchObject({ address: '127.0.0.1', port });
    await expect(listenOnLoopback(server)).rejects.toMatchObject({ code: 'ERR_SERVER_ALREADY_LISTEN' });
    await new Promise((resolve) => server.close(resolve));
  });
});

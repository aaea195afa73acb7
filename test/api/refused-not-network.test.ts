/**
 * A 4xx is never a network failure (cli-contract 4, v5; issue 34 item 3). Where one request of a
 * run is refused while another waits for the same keep-alive connection (`svc mcp serve`'s start-up
 * asked for the profile and the catalog at once), the run ends and closes the connection under the
 * other: undici reports that as UND_ERR_DESTROYED, which was taken for the network, said as "Could
 * not reach the service ...; retrying" and retried. A request svc itself abandoned is not retried,
 * and nothing says it could not reach the service.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { listDatabases } from '../../src/api/operations/databases.js';
import { getProfile } from '../../src/api/operations/profile.js';
import { isCliError } from '../../src/errors.js';
import { fixture } from '../support/fixtures.js';
import { delayed, json, LoopbackServer } from '../support/loopback-server.js';

let server: LoopbackServer;
beforeEach(async () => {
  server = await new LoopbackServer().start();
});
afterEach(() => server.stop());

it('a request still queued when the client closes after a 401 is neither retried nor called a network failure', async () => {
  server.script(delayed(100, json(401, fixture('error-401'))), json(200, fixture('databases-page2')));
  const said: string[] = [];
  const client = new ApiClient({
    baseUrl: server.baseUrl,
    token: 'svc_test_refused_0123456789',
    timeoutMs: 5_000,
    maxRetries: 4,
    sleep: async () => {},
    random: () => 0,
    onRetry: (line) => said.push(line),
  });
  const profile = client.send(getProfile());
  // Handled at once: it fails after the close below.
  const databases = client.send(listDatabases({})).then(
    () => undefined,
    (err: unknown) => err,
  );
  await expect(profile).rejects.toMatchObject({ status: 401 });
  await client.close();
  const abandoned = await databases;

  expect(said).toEqual([]);
  expect(isCliError(abandoned) && abandoned.details.code).not.toBe('connection_failed');
  expect(String((abandoned as Error | undefined)?.message)).not.toContain('Could not reach');
});

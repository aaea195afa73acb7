import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { MswLoopback } from '../helpers/msw-server.js';
import { runCli } from '../helpers/run-cli.js';

const server = new MswLoopback();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());

it('lists databases', async () => {
  server.use(http.get('*/api/v1/databases', () => HttpResponse.json(fixture('databases-page1.json'.replace('.json','')))));
  const r = await runCli(['databases', 'list', '--base-url', server.baseUrl], { env: { SVC_API_KEY: 'svc_test_abc123' } });
  console.log(r.stdout, r.stderr);
  expect(r.code).toBe(0);
});

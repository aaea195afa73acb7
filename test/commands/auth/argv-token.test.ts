import { expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';

const TOKEN = 'svc_live_argv_0123456789abcdef';

it('refuses a token given as an argument, says why, and never echoes it', async () => {
  const r = await runCli(['auth', 'login', TOKEN, '--base-url', 'http://127.0.0.1:9']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('never accepted on the command line');
  expect(r.stderr).toContain('--with-token');
  expect(r.stdout + r.stderr).not.toContain(TOKEN);
});

it("the refusal's hint is the whole command: it carries the --profile and --base-url given", async () => {
  const r = await runCli(['auth', 'login', '--profile', 'prod', TOKEN, '--base-url', 'http://127.0.0.1:9']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('printf %s "$TOKEN" | svc auth login --profile prod --base-url http://127.0.0.1:9 --with-token');
  expect(r.stdout + r.stderr).not.toContain(TOKEN);
});

it.each([
  ['auth', 'login', `--token=${TOKEN}`],
  ['databases', 'list', `--api-key=${TOKEN}`],
])('an unknown --option=value is reported without its value: %s %s', async (...argv) => {
  const r = await runCli([...argv, '--base-url', 'http://127.0.0.1:9']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/unknown option/);
  expect(r.stdout + r.stderr).not.toContain(TOKEN);
});

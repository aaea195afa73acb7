/**
 * `npm run --silent mcp:session`: a real agent session with `svc mcp serve`, printed as the JSON-RPC
 * messages both sides exchanged (docs/agents.md's transcript, captured by `npm run docs:capture`).
 * Like `npm run demo`, it starts the sandbox and, where PostgreSQL is installed, a throwaway cluster
 * for plan_restore's target, and stops both at the end. The client is the MCP SDK's own, over this
 * repository's built bin/svc (`npm run build` first). The initialize and tools/list answers are
 * long (the instructions, every schema): they are shortened, and say so; every other message is
 * printed whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/index.ts';
import { connectMcp } from '../test/support/mcp-client.ts';
import { pgServerAvailable, startCluster } from '../test/support/pg-cluster.ts';

const sandbox = await startSandbox({ port: 0, recentTimestamps: true });
const cluster = pgServerAvailable() ? await startCluster({}) : undefined;
const home = mkdtempSync(join(tmpdir(), 'svc-mcp-session-'));
try {
  // What the agent client hands the server: the user's environment (here the sandbox's demo token,
  // and the target's password where libpq reads it), never anything in a tool's arguments.
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    LANG: 'C.UTF-8',
    SVC_BASE_URL: sandbox.baseUrl,
    SVC_API_KEY: sandbox.token('full'),
    ...(cluster ? { PGPASSWORD: cluster.password } : {}),
  };
  const { client, transport } = await connectMcp(['mcp', 'serve'], env, { clientName: 'mcp-session' });
  const { tools } = await client.listTools();
  const incidentTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await client.callTool({ name: 'list_databases', arguments: { limit: 2 } });
  const candidate = await client.callTool({ name: 'get_recovery_candidate', arguments: { databaseId: 'db_orders', incidentTime } });
  const windowId = candidate.structuredContent?.recommended?.windowId;
  const target = cluster ? cluster.dsn('orders_restored') : 'postgresql://app@localhost/orders_restored';
  await client.callTool({ name: 'plan_restore', arguments: { windowId, target } });
  await client.callTool({ name: 'svc.recovery.restore', arguments: {} });
  await client.close();

  const methods = new Map();
  for (const { dir, message } of transport.exchange) {
    if ('method' in message) methods.set(message.id, message.method);
    const answers = dir === '←' && 'result' in message ? methods.get(message.id) : undefined;
    if (answers === 'initialize') {
      const { instructions, ...rest } = message.result;
      console.log(`${dir} ${JSON.stringify({ ...message, result: { ...rest, instructions: `${instructions.split('\n')[0]} …` } })}`);
    } else if (answers === 'tools/list') {
      const listed = tools.map((t) => `${t.name}${t.annotations?.readOnlyHint ? '' : ' (writes)'}`).join(', ');
      console.log(`${dir} {"jsonrpc":"2.0","id":${message.id},"result":{"tools":[… ${tools.length} tools with their schemas and annotations: ${listed}]}}`);
    } else {
      console.log(`${dir} ${JSON.stringify(message)}`);
    }
  }
} finally {
  await cluster?.stop();
  await sandbox.stop();
  rmSync(home, { recursive: true, force: true });
}

/**
 * The floor of the paging-CPU rows: plain node doing what `svc databases list --all --json` does
 * with the bytes, and nothing else: GET every page of the bench servers' list on one keep-alive
 * connection (node:http), JSON.parse each body, write its items to stdout as pretty JSON. No
 * validation, no scrubbing, no retries, no pacing.
 * Usage: node bench/lib/pages-floor.mjs <base-url>
 */
import { Agent, get } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const page = (url) =>
  new Promise((resolve, reject) => {
    get(url, { agent, headers: { accept: 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    }).on('error', reject);
  });

let cursor;
do {
  const body = await page(`${process.argv[2]}/api/v1/databases${cursor ? `?cursor=${cursor}` : ''}`);
  if (!process.stdout.write(JSON.stringify({ items: body.databases }, null, 2))) await new Promise((r) => process.stdout.once('drain', r));
  cursor = body.nextCursor;
} while (cursor);
agent.destroy();

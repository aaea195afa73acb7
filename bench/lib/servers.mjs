/**
 * The bench's loopback servers, in their own process so the bench can time with blocking spawnSync:
 *  - /files/<name>: files of the bench dir through src/sandbox/range-file.ts serveFile (streamed,
 *    Range-capable: the same code the test suite's artifact servers use);
 *  - /api/v1/databases: listDatabases, PAGES pages of PAGE_SIZE items (fixture items with their ids
 *    renumbered), chained by nextCursor. Answers straight from memory: no artificial latency.
 *  - /_bench/connections: how many TCP connections were accepted so far (to check keep-alive).
 * Prints {"base": "http://127.0.0.1:<port>"} and serves until stdin closes or SIGTERM.
 * Usage: node --import tsx bench/lib/servers.mjs <files-dir> [pages] [pageSize]
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { serveFile } from '../../src/sandbox/range-file.ts';

const [dir, pagesArg = '100', pageSizeArg = '20'] = process.argv.slice(2);
const PAGES = Number(pagesArg);
const PAGE_SIZE = Number(pageSizeArg);

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/api/databases-page1.json', import.meta.url), 'utf8'));
const pages = [];
for (let p = 0; p < PAGES; p++) {
  const databases = [];
  for (let i = 0; i < PAGE_SIZE; i++) {
    const item = fixture.databases[(p * PAGE_SIZE + i) % fixture.databases.length];
    const n = p * PAGE_SIZE + i + 1;
    databases.push({ ...item, id: `db_${String(n).padStart(5, '0')}`, name: `${item.name}-${n}` });
  }
  pages.push(JSON.stringify({ databases, nextCursor: p + 1 < PAGES ? `page_${p + 1}` : null }));
}

let connections = 0;
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/_bench/connections') {
    res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ connections }));
    return;
  }
  if (url.pathname.startsWith('/files/')) {
    serveFile(req, res, join(dir, basename(decodeURIComponent(url.pathname.slice('/files/'.length))))).catch(() => res.destroy());
    return;
  }
  if (url.pathname === '/api/v1/databases' && req.method === 'GET') {
    const cursor = url.searchParams.get('cursor');
    const index = cursor ? Number(cursor.replace(/^page_/, '')) : 0;
    const body = pages[index];
    if (body === undefined) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"code":"bad_cursor","message":"bad cursor","requestId":"req_bench"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': `req_bench_${index}` });
    res.end(body);
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
});
server.on('connection', () => {
  connections += 1;
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ base: `http://127.0.0.1:${server.address().port}` })}\n`);
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);

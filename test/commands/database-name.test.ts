/**
 * A database's name where its id is expected (cli-contract 4, v5), once for every verb: the id is
 * tried first; on its 404, one listDatabases read (every page) finds the one database of that name,
 * said on stderr, and the command runs with its id. Several of that name, or none, is said plainly.
 */
import { describe, expect, it } from 'vitest';
import { fixture } from '../support/fixtures.js';
import { runCase, useServer, type Route } from './harness.js';

const { server, configHome } = useServer();

const notFound = (path: string): Route => ({ path, fixture: 'error-404', status: 404 });
const page1: Route = { path: '/databases', fixture: 'databases-page1', whenQuery: { cursor: null } };
const page2: Route = { path: '/databases', fixture: 'databases-page2', whenQuery: { cursor: 'cur_db_2' } };
const listed = [{ path: '/databases' }, { path: '/databases', query: { cursor: 'cur_db_2' } }];

describe('a database name where an id is expected', () => {
  it('databases get orders-prod: the 404, one list read, then db_orders, said on stderr', async () => {
    const r = await runCase(server, configHome(), {
      name: 'get by name',
      argv: ['databases', 'get', 'orders-prod'],
      routes: [notFound('/databases/orders-prod'), page1, page2, { path: '/databases/db_orders', fixture: 'database-get' }],
      requests: [{ path: '/databases/orders-prod' }, ...listed, { path: '/databases/db_orders' }],
      code: 0,
      stderr: ['No database has the id "orders-prod"; one is named so: using db_orders.'],
    });
    expect(r.stdout).toContain('db_orders');
  });

  it('backups list analytics (a name on the second page): the same, for another verb', async () => {
    await runCase(server, configHome(), {
      name: 'backups by name',
      argv: ['backups', 'list', 'analytics'],
      routes: [notFound('/databases/analytics/backups'), page1, page2, { path: '/databases/db_analytics/backups', fixture: 'backups-list-empty' }],
      requests: [{ path: '/databases/analytics/backups' }, ...listed, { path: '/databases/db_analytics/backups' }],
      code: 0,
      stderr: ['using db_analytics'],
    });
  });

  it('two databases of that name: exit 2 naming both ids', async () => {
    const twice = { ...fixture('databases-page2'), databases: [{ ...fixture('databases-page2').databases[0], id: 'db_orders_eu', name: 'orders-prod' }] };
    await runCase(server, configHome(), {
      name: 'ambiguous',
      argv: ['databases', 'get', 'orders-prod'],
      routes: [notFound('/databases/orders-prod'), page1, { path: '/databases', body: twice, whenQuery: { cursor: 'cur_db_2' } }],
      requests: [{ path: '/databases/orders-prod' }, ...listed],
      code: 2,
      stderr: ['2 databases are named so: db_orders, db_orders_eu', 'Name one by its id.'],
    });
  });

  it('no database of that name: the 404 as it was (exit 5)', async () => {
    await runCase(server, configHome(), {
      name: 'none',
      argv: ['databases', 'get', 'nope'],
      routes: [notFound('/databases/nope'), page1, page2],
      requests: [{ path: '/databases/nope' }, ...listed],
      code: 5,
      stderrNot: ['using'],
    });
  });
});

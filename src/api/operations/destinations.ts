import { operation } from '../operation.js';
import { destinationRows } from '../operation-table/destinations.js';
import type { PageParams } from './common.js';

export const listDestinations = (page: PageParams) => operation(destinationRows, 'listDestinations', { query: { ...page } });

export const getDestination = (destinationId: string) =>
  operation(destinationRows, 'getDestination', {
    params: { destinationId },
    notFound: { what: `destination ${destinationId}`, list: [['destinations', 'list']], tool: 'list_destinations' },
  });

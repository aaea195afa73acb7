import type { Operation } from '../client.js';
import { getDestinationResponse, listDestinationsResponse } from '../schemas/destinations.js';
import { seg, type PageParams } from './common.js';

export const listDestinations = (page: PageParams) =>
  ({ name: 'listDestinations', method: 'GET', path: '/destinations', query: { ...page }, response: listDestinationsResponse }) satisfies Operation;

export const getDestination = (destinationId: string) =>
  ({
    name: 'getDestination',
    method: 'GET',
    path: `/destinations/${seg(destinationId)}`,
    notFound: { what: `destination ${destinationId}`, list: [['destinations', 'list']], tool: 'list_destinations' },
    response: getDestinationResponse,
  }) satisfies Operation;

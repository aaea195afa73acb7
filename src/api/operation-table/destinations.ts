import { getDestinationResponse, listDestinationsResponse } from '../schemas/destinations.js';
import { PAGE, type OperationRows } from './row.js';

export const destinationRows = {
  listDestinations: { method: 'GET', path: '/destinations', scope: 'destinations:read', query: PAGE, success: 200, response: listDestinationsResponse },
  getDestination: {
    method: 'GET',
    path: '/destinations/:destinationId',
    scope: 'destinations:read',
    query: [],
    success: 200,
    response: getDestinationResponse,
  },
} as const satisfies OperationRows;

import { getDestinationResponse, listDestinationsResponse } from '../schemas/destinations.js';
import { OPERATION_ROUTES as ROUTES } from '../operation-routes.js';
import type { OperationRows } from './row.js';

export const destinationRows = {
  listDestinations: { ...ROUTES.listDestinations, response: listDestinationsResponse },
  getDestination: { ...ROUTES.getDestination, response: getDestinationResponse },
} as const satisfies OperationRows;

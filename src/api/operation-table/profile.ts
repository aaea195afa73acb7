import { getProfileResponse } from '../schemas/profile.js';
import { OPERATION_ROUTES as ROUTES } from '../operation-routes.js';
import type { OperationRows } from './row.js';

export const profileRows = {
  getProfile: { ...ROUTES.getProfile, response: getProfileResponse },
} as const satisfies OperationRows;

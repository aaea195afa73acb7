import { getProfileResponse } from '../schemas/profile.js';
import type { OperationRows } from './row.js';

export const profileRows = {
  getProfile: { method: 'GET', path: '/profile', scope: null, query: [], success: 200, response: getProfileResponse },
} as const satisfies OperationRows;

import { operation } from '../operation.js';
import { profileRows } from '../operation-table/profile.js';

export const getProfile = () => operation(profileRows, 'getProfile');

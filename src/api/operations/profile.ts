import type { Operation } from '../client.js';
import { getProfileResponse } from '../schemas/profile.js';

export const getProfile = () => ({ name: 'getProfile', method: 'GET', path: '/profile', response: getProfileResponse }) satisfies Operation;

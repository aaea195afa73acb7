/** The shells svc writes completion scripts for (a module of its own: a Tab loads the names, not the scripts). */
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

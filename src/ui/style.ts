import { styleText } from 'node:util';

export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';

export type Paint = (style: Style, text: string) => string;

export function painter(enabled: boolean): Paint {
  return enabled ? (style, text) => styleText(style, text) : (_style, text) => text;
}

/** Colour on a TTY unless NO_COLOR (any value, https://no-color.org) or --no-color. */
export function colorEnabled(isTTY: boolean, env: Record<string, string | undefined>, flag: boolean): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

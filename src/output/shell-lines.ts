import { displayWidth, wrapWords } from './terminal-text.js';

/** The words of a command line as a POSIX shell splits it, each quoted part kept in its word. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      word += c;
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') word += line[++i] ?? '';
    } else if (c === '\\') word += c + (line[++i] ?? '');
    else if (c === "'" || c === '"') {
      quote = c;
      word += c;
    } else if (c === ' ') {
      if (word) words.push(word);
      word = '';
    } else word += c;
  }
  if (word) words.push(word);
  return words;
}

/** A line ending in one of these goes on in every shell (PowerShell's pipe too): no backslash needed. */
const OPERATORS = new Set(['|', '||', '&&']);
const REDIRECTION = /^\d?(?:>>?|<)$/;
const OPTION = /^-/;

/** Words read together, kept on one line where they fit: a redirection and its file, an option and its value. */
function units(words: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    const pairs =
      next !== undefined && !OPERATORS.has(next) && (REDIRECTION.test(word) || (OPTION.test(word) && !OPTION.test(next) && !REDIRECTION.test(next)));
    out.push(pairs ? [word, next] : [word]);
    if (pairs) i++;
  }
  return out;
}

/**
 * A command line a person copies and runs, in lines of at most `width` columns that still run as
 * one command: `prompt` before it; where it is too long it is broken between words, after a pipe
 * or && where there is one, else with a trailing ` \` (a POSIX shell line continuation), keeping
 * an option with its value where they fit; later lines start with `indent`. A trailing comment
 * goes on a line of its own above. A word is never split (quoted text is one word): one too wide
 * for any line starts at the first column.
 */
export function shellLines(command: string, width: number, prompt: string, indent: string): string[] {
  if (displayWidth(prompt + command) <= width) return [prompt + command];
  const words = shellWords(command);
  const hash = words.findIndex((w) => w.startsWith('#'));
  const comment = hash < 0 ? [] : wrapWords(words.slice(hash).join(' ').replace(/^#+ */, ''), width - indent.length).map((l) => `${indent.slice(2)}# ${l}`);
  // Pipeline stages, each ending in its operator.
  const stages: string[][] = [[]];
  for (const word of hash < 0 ? words : words.slice(0, hash)) {
    stages.at(-1)!.push(word);
    if (OPERATORS.has(word)) stages.push([]);
  }
  const lines: string[] = [];
  let line = prompt;
  let fresh = true;
  const fits = (text: string) => displayWidth(text) <= width;
  const breakLine = (end: string) => {
    lines.push(line + end);
    line = indent;
    fresh = true;
  };
  const add = (text: string) => {
    // Too wide at the indent: from the first column (the terminal wraps it, but it is copied whole).
    if (fresh && !fits(line + text) && line.trim() === '') line = '';
    line += fresh ? text : ` ${text}`;
    fresh = false;
  };
  /** A stage too long for a line: broken between its units, each with a backslash but the last. */
  const breakStage = (stage: string[]) => {
    const parts = units(stage).flatMap((u) => (u.length > 1 && !fits(`${indent}${u.join(' ')} \\`) ? u.map((w) => [w]) : [u]));
    parts.forEach((part, i) => {
      const text = part.join(' ');
      if (!fresh && !fits(`${line} ${text}${i < parts.length - 1 ? ' \\' : ''}`)) breakLine(' \\');
      add(text);
    });
  };
  for (const stage of stages.filter((s) => s.length)) {
    const text = stage.join(' ');
    // The line so far ends in an operator: it goes on without a backslash.
    if (!fresh && !fits(`${line} ${text}`)) breakLine('');
    if (fits(fresh ? line + text : `${line} ${text}`)) add(text);
    else breakStage(stage);
  }
  lines.push(line);
  return [...comment, ...lines];
}

/** An example of a command's help: `  $ ` before it, later lines indented under the command. */
export function exampleLines(command: string, width: number): string[] {
  return shellLines(command, width, '  $ ', '    ');
}

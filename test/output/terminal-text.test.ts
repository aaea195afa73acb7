/** Text wrapped to a terminal: at spaces, never inside a word, so a digest or URL can be copied whole. */
import { describe, expect, it } from 'vitest';
import { displayWidth, wrapWords } from '../../src/output/terminal-text.js';

const SHA = '431f169e300744698502594d4d92c131b38fb76bf98380e7c946648478391a55';

describe('wrapWords', () => {
  it('breaks at spaces; a text that fits is left exactly as it is, its runs of spaces too', () => {
    expect(wrapWords('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapWords('  completed backup:   The backup job', 80)).toEqual(['  completed backup:   The backup job']);
  });

  it("keeps a paragraph's indent, and indents its later lines by `hanging` more", () => {
    expect(wrapWords('  next action: issue a token with evidence:read', 24, '  ')).toEqual(['  next action: issue a', '    token with', '    evidence:read']);
  });

  it('never splits a word: one too wide for its line gets a line of its own, from the first column if the indent leaves no room', () => {
    expect(wrapWords(`sha-256 ${SHA} (0.1s)`, 70, '  ')).toEqual(['sha-256', `  ${SHA}`, '  (0.1s)']);
    expect(wrapWords(`sha-256 ${SHA} (0.1s)`, 40, '  ')).toEqual(['sha-256', SHA, '  (0.1s)']);
  });

  it('keeps newlines, and empty lines', () => {
    expect(wrapWords('a b\n\nc', 80)).toEqual(['a b', '', 'c']);
  });
});

describe('displayWidth', () => {
  it('counts what the terminal shows: colour codes take no column', () => {
    expect(displayWidth('\u001b[1mID\u001b[22m ✓')).toBe(4);
  });
});

import { Help } from 'commander';
import { wrapWords } from '../../output/terminal-text.js';

/** Narrower than this, a description beside its option reads badly: it goes under the option instead. */
const MIN_DESCRIPTION_WIDTH = 28;
/** Where commander puts an item, and a description under it. */
const ITEM_INDENT = 2;
const UNDER_INDENT = 6;

/**
 * commander's help, fitted to every terminal width (cli-contract 4): on a narrow one, each
 * option's and command's description goes on the lines under it instead of a column too narrow to
 * read, and a long usage line wraps under itself. Given to configureHelp, so `this` is the Help.
 */
export const helpLayout: Partial<Help> = {
  showGlobalOptions: true,
  // Descriptions wrap under themselves down to here; narrower, formatItem puts them under the option.
  minWidthToWrap: 10,
  formatItem(this: Help, term, termWidth, description, helper) {
    const width = this.helpWidth ?? 80;
    if (!description || width - termWidth - ITEM_INDENT - 2 >= MIN_DESCRIPTION_WIDTH) {
      return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    }
    const under = wrapWords(description, width - UNDER_INDENT).map((line) => ' '.repeat(UNDER_INDENT) + line);
    return [' '.repeat(ITEM_INDENT) + term, ...under].join('\n');
  },
  styleUsage(this: Help, usage) {
    // After "Usage: ".
    const indent = ' '.repeat(7);
    return wrapWords(usage, (this.helpWidth ?? 80) - indent.length).join(`\n${indent}`);
  },
};

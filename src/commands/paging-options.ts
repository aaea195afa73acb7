import { Option } from 'commander';

/** The paging flags every list command shares (cli-contract 3). */
export const limitOption = () => new Option('--limit <n>', 'page size');
export const cursorOption = () => new Option('--cursor <cursor>', 'start from this page cursor');
export const allOption = () => new Option('--all', 'follow nextCursor to the last page and print one merged list');

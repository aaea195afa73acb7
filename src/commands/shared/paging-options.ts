import { Option, type Command } from 'commander';

/**
 * The paging flags every list command shares (cli-contract 3). Apart from paging.ts, which checks
 * and follows them: registering commands (every --help, every Tab press) must not load zod.
 */
export function addPagingOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--limit <n>', 'page size'))
    .addOption(new Option('--cursor <cursor>', 'start from this page cursor'))
    .addOption(new Option('--all', 'follow nextCursor to the last page and print one merged list'))
    .addOption(new Option('--no-headers', 'print the table without its header row (for wc -l, cut, awk)'));
}

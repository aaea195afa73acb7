/** docs/commands.md: the command reference in Markdown, rendered from the command tree (reference.ts). */
import { allCommands, type CommandDoc, type Item, type Reference } from './reference.js';
import { environment, errorCodes, exitStatus, files } from './sections.js';

/**
 * Help text as Markdown: a `quoted command` is a code span, printed as written (entities would show
 * literally there, GitHub reading `|` as a cell's end still excepted); the rest is text, escaped.
 */
export function mdText(text: string): string {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 ? part.replace(/\|/g, '\\|') : escapedText(part)))
    .join('');
}

/** Text shown as text: Markdown's own characters escaped, angle brackets as entities (`<databaseId>` is not a tag). */
function escapedText(text: string): string {
  return text
    .replace(/[\\`*[\]|]/g, (c) => `\\${c}`)
    // An underscore inside a word (svc_drill, SVC_API_KEY) is no emphasis on GitHub: only the others are escaped.
    .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\_')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** Text in a code span inside a table cell: GitHub splits cells at `|` even there, so it is escaped. */
function mdCode(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${text.replace(/\|/g, '\\|')}${fence}`;
}

const title = (doc: CommandDoc) => ['svc', ...doc.path].join(' ');

/** GitHub's heading anchor for "svc restore drill": #svc-restore-drill. */
export const anchor = (heading: string) => `#${heading.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-')}`;

function table(head: [string, string], rows: Item[]): string[] {
  if (!rows.length) return [];
  return [`| ${head[0]} | ${head[1]} |`, '|---|---|', ...rows.map((r) => `| ${mdCode(r.term)} | ${mdText(r.description)} |`), ''];
}

function examples(lines: string[]): string[] {
  if (!lines.length) return [];
  return ['Examples:', '', '```sh', ...lines, '```', ''];
}

function commandSection(doc: CommandDoc): string[] {
  const depth = doc.path.length === 1 ? '##' : '###';
  const out = [`${depth} ${title(doc)}`, '', '```', doc.usage, '```', '', mdText(doc.description), ''];
  out.push(...table(['argument', 'meaning'], doc.arguments));
  out.push(...table(['option', 'meaning'], doc.options));
  if (doc.subcommands.length) {
    out.push('| command | what it does |', '|---|---|');
    for (const sub of doc.subcommands) out.push(`| [${mdText(title(sub))}](${anchor(title(sub))}) | ${mdText(sub.description)} |`);
    out.push('');
  }
  out.push(...examples(doc.examples));
  for (const note of doc.notes) out.push(mdText(note), '');
  return out;
}

function contents(root: CommandDoc): string[] {
  const line = (doc: CommandDoc) => {
    const subs = doc.subcommands.map((s) => `[${s.path.at(-1)}](${anchor(title(s))})`);
    return `- [${title(doc)}](${anchor(title(doc))})${subs.length ? `: ${subs.join(' · ')}` : ''}`;
  };
  return [
    '- [Global options](#global-options)',
    ...root.subcommands.map(line),
    '- [Exit codes](#exit-codes) · [Error codes](#error-codes) · [Environment](#environment) · [Files](#files)',
    '',
  ];
}

export function commandsMarkdown(ref: Reference): string {
  const { root } = ref;
  const out = [
    '<!-- Generated from the command tree by `npm run docs` (tools/docs.ts). Do not edit: change the help in src/ and run npm run docs. -->',
    '',
    '# svc command reference',
    '',
    `Every command of svc with what its \`--help\` says, on one page; \`man svc\` holds the same. The guides: [the README](../README.md#manual).`,
    '',
    '```',
    root.usage,
    '```',
    '',
    mdText(root.description),
    '',
    ...contents(root),
    '## Global options',
    '',
    'Accepted before or after the command (`svc --json databases list` is `svc databases list --json`); every command also takes `-h, --help`.',
    '',
    ...table(['option', 'meaning'], ref.globalOptions),
    ...examples(root.examples),
  ];
  for (const doc of allCommands(root).slice(1)) out.push(...commandSection(doc));
  out.push(
    '## Exit codes',
    '',
    'Scripts can rely on these (`src/exit-codes.ts`).',
    '',
    ...table(['code', 'meaning'], exitStatus),
    '## Error codes',
    '',
    "The `code` of the `--json` error envelope (`{\"error\":{\"code\",\"message\",\"requestId\",\"requiredScope\"?,\"nextAction\"?,\"status\"}}`, the last line of stderr) for failures svc reports itself (`src/errors.ts`). An error answered by the service carries the service's own code, and its HTTP status decides the exit code.",
    '',
    '| code | exit | default hint |',
    '|---|---|---|',
    ...errorCodes.map((e) => `| ${mdCode(e.term)} | ${e.exit} | ${mdText(e.description)} |`),
    '',
    '## Environment',
    '',
    ...table(['variable', 'meaning'], environment),
    '## Files',
    '',
    ...table(['file', 'what it holds'], files),
  );
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

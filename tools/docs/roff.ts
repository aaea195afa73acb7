/** man/svc.1: the man page in roff (the man macros), rendered from the command tree (reference.ts). */
import { VERSION } from '../../src/version.js';
import { allCommands, type CommandDoc, type Item, type Reference } from './reference.js';
import { description, environment, exitStatus, files, seeAlso, seeAlsoText } from './sections.js';

/**
 * Text for a roff text line: backslashes as \e, every hyphen as \- (so options copy as typed),
 * anything outside ASCII as a \[uXXXX] glyph, and a leading dot or apostrophe, which would make
 * the line a request, neutralised with \&.
 */
export function roffText(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\e';
    else if (ch === '-') out += '\\-';
    else if (cp > 0x7e) out += `\\[u${cp.toString(16).toUpperCase().padStart(4, '0')}]`;
    else if (cp < 0x20) out += ' ';
    else out += ch;
  }
  return out
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

const bold = (text: string) => `\\fB${roffText(text)}\\fR`;

/** An argument of a macro: quoted, with any double quote inside as \(dq. */
const arg = (text: string) => `"${roffText(text).replace(/"/g, '\\(dq')}"`;

function items(rows: Item[]): string[] {
  return rows.flatMap((r) => ['.TP', bold(r.term), roffText(r.description)]);
}

function examples(lines: string[]): string[] {
  if (!lines.length) return [];
  return ['.PP', 'Examples:', '.RS 4', '.nf', ...lines.map(roffText), '.fi', '.RE'];
}

function command(doc: CommandDoc): string[] {
  const out = [`.SS ${arg(['svc', ...doc.path].join(' '))}`, bold(doc.usage), '.PP', roffText(doc.description)];
  if (doc.arguments.length) out.push('.PP', 'Arguments:', '.RS 4', ...items(doc.arguments), '.RE');
  if (doc.options.length) out.push('.PP', 'Options:', '.RS 4', ...items(doc.options), '.RE');
  if (doc.subcommands.length) out.push('.PP', `Commands: ${roffText(doc.subcommands.map((s) => s.path.at(-1)).join(', '))}.`);
  out.push(...examples(doc.examples));
  for (const note of doc.notes) out.push('.PP', roffText(note));
  return out;
}

export function manPage(ref: Reference): string {
  const { root } = ref;
  const out = [
    '.\\" Generated from the command tree by `npm run docs` (tools/docs.ts). Do not edit: change the help in src/ and run npm run docs.',
    `.TH SVC 1 "" ${arg(`svc ${VERSION}`)} "svc manual"`,
    '.SH NAME',
    `svc \\- ${roffText(root.description.replace(/^./, (c) => c.toLowerCase()))}`,
    '.SH SYNOPSIS',
    `${bold('svc')} [\\fIglobal options\\fR] \\fIcommand\\fR [\\fIarguments\\fR] [\\fIoptions\\fR]`,
    '.SH DESCRIPTION',
    ...description.flatMap((p) => ['.PP', roffText(p)]),
    ...examples(root.examples),
    '.SH GLOBAL OPTIONS',
    'Accepted before or after the command; every command also takes \\fB\\-h, \\-\\-help\\fR.',
    ...items(ref.globalOptions),
    '.SH COMMANDS',
    ...allCommands(root).slice(1).flatMap(command),
    '.SH EXIT STATUS',
    ...items(exitStatus),
    '.SH ENVIRONMENT',
    ...items(environment),
    '.SH FILES',
    ...items(files),
    '.SH SEE ALSO',
    `${seeAlso.map((s) => roffText(s).replace(/^(.*)\((\d)\)$/, '\\fB$1\\fR($2)')).join(', ')}`,
    '.PP',
    roffText(seeAlsoText),
  ];
  return `${out.join('\n')}\n`;
}

/**
 * The one builder of every command svc prints for a person to run (cli-contract 7.16 c): `Next:`
 * lines, hints, plan_restore's commands, a drill's --keep lines, the sandbox's exports. A command is
 * an argument vector, never a formatted string: each argument is quoted for POSIX shells, so
 * whatever the service, an archive or an agent put in it, pasted into `sh` it runs its program
 * with exactly those arguments and nothing else.
 */

/** A part of a command that is left for the person to fill in (`<databaseId>`): shown as such, never quoted. */
export interface Placeholder {
  placeholder: string;
}

export type Word = string | Placeholder;

/** The global flags the user gave on this run's command line: every printed svc command carries them (cli-contract 4, v5). */
export interface GivenFlags {
  baseUrl?: string;
  profile?: string;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;
const single = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * An argument holding a control character, on one line and exact: `"$(printf '%b' '...')"`, the
 * character written as its UTF-8 bytes in octal. A raw line break inside quotes would be exact too,
 * but a command is printed on one line, so that no line of it, copied alone, is a command of its own
 * (`x\nrm -rf ~ #`), and nothing in it drives the terminal it is printed on (cli-contract 4).
 * `$(...)` drops trailing line breaks, so an argument that ends in one cannot be written this way:
 * it is shown as an unquoted parenthesis, which a shell refuses as a syntax error, running nothing.
 */
function printfArg(value: string): string {
  if (value.endsWith('\n')) return '(argument-ending-in-a-line-break)';
  const escaped = [...value.replaceAll('\u0000', '')]
    .map((ch) => {
      if (ch === '\\') return '\\\\';
      if (!CONTROL.test(ch)) return ch;
      return [...Buffer.from(ch, 'utf8')].map((b) => `\\0${b.toString(8).padStart(3, '0')}`).join('');
    })
    .join('');
  return `"$(printf '%b' ${single(escaped)})"`;
}

/** One argument for a POSIX shell: bare where no character is special to it, else single-quoted ('\'' for a quote inside). */
export function shellArg(value: string): string {
  if (CONTROL.test(value)) return printfArg(value);
  return BARE.test(value) ? value : single(value);
}

function word(w: Word): string {
  if (typeof w === 'string') return shellArg(w);
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(w.placeholder)) throw new Error(`not a placeholder name: ${w.placeholder}`);
  return `<${w.placeholder}>`;
}

/** A command line that pastes back into a shell as the same argv. */
export const shellCommand = (argv: readonly Word[]): string => argv.map(word).join(' ');

/**
 * An svc command: `svc`, the flags the user gave (so the command reaches the same service as the
 * same login), the words of the command (subcommands and options with their values), then its
 * operands, after `--` where one could be read as an option.
 */
export function svcCommand(words: readonly Word[], given: GivenFlags = {}, operands: readonly Word[] = []): string {
  const flags = [...(given.baseUrl === undefined ? [] : ['--base-url', given.baseUrl]), ...(given.profile === undefined ? [] : ['--profile', given.profile])];
  const dash = operands.some((o) => typeof o === 'string' && o.startsWith('-')) ? ['--'] : [];
  return shellCommand(['svc', ...flags, ...words, ...dash, ...operands]);
}

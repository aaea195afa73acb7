/**
 * Text from the service or from restored data (names, check rows, messages) as each report medium
 * must hold it (cli-contract 7.15): whatever it contains, it stays text, inside its row or element.
 * The terminal's rules are in terminal-text.ts; JSON's are the serialiser's.
 */

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/** A lone UTF-16 surrogate: no character at all, in XML or anywhere else. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Markdown (drill.md, rendered as a CI job summary): one line of literal text. Control characters
 * go; a newline reads `\n`; `|` cannot end a table cell; `<`, `>` cannot open HTML; backticks cannot
 * open code; each by CommonMark's backslash escape, the backslash itself escaped first.
 */
export function markdownText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL, '')
    .replace(LONE_SURROGATE, '')
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\\\n')
    .replace(/[|<>`]/g, '\\$&');
}

/** Markdown inline code (a check's name, an error code): no escape works inside it, so nothing may end it early. */
export function markdownCode(text: string): string {
  const inner = text.replace(/\r\n?/g, '\n').replace(CONTROL, '').replace(LONE_SURROGATE, '').replace(/\n/g, '\\n').replace(/`/g, "'");
  return `\`${inner}\``;
}

/**
 * XML 1.0 (junit.xml) text or attribute value: the five special characters as entities, and what
 * XML cannot hold at all (C0 controls but tab and line ends, U+FFFE, U+FFFF, lone surrogates) left
 * out, with DEL and C1 too, which are no text a CI page should draw.
 */
export function xmlText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]/g, '')
    .replace(LONE_SURROGATE, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Prints the bench table on stdout: figure, baseline, ratio, target, pass/fail. */
export function printTable(rows) {
  const head = ['what', 'figure', 'baseline', 'ratio', 'target', 'result'];
  const cells = rows.map((r) => [r.what, r.figure, r.baseline, r.ratio, r.targetText, r.pass === undefined ? 'skipped' : r.pass ? 'PASS' : 'FAIL']);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => String(c[i]).length)));
  const line = (c) => `| ${c.map((v, i) => String(v).padEnd(widths[i])).join(' | ')} |`;
  const out = [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)];
  process.stdout.write(`${out.join('\n')}\n`);
  const notes = rows.filter((r) => r.note);
  if (notes.length) process.stdout.write(`\n${notes.map((r) => `- ${r.what}: ${r.note}`).join('\n')}\n`);
}

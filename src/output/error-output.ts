import type { Writable } from 'node:stream';
import type { CliError } from '../errors.js';
import type { Paint } from '../ui/style.js';
import { plain, terminalSafeJson, wrapWords } from './terminal-text.js';

/**
 * Errors on stderr: the JSON envelope under --json (cli-contract 4), readable lines otherwise, which
 * on a terminal (`width` given) wrap at spaces under themselves.
 */
export function writeError(stderr: Writable, err: CliError, json: boolean, paint: Paint, width?: number): void {
  const d = err.details;
  if (json) {
    const envelope = {
      error: {
        code: d.code,
        message: err.message,
        requestId: d.requestId ?? null,
        requiredScope: d.requiredScope,
        // The service's nextAction, or svc's own advice where the service gave none.
        nextAction: d.nextAction ?? d.hint,
        status: d.status ?? null,
      },
    };
    stderr.write(`${terminalSafeJson(envelope)}\n`);
    return;
  }
  // Human form: service text cannot drive the terminal (control characters removed, cli-contract 4).
  const lines = [`error: ${plain(err.message)}`];
  if (d.requiredScope) lines.push(`  required scope: ${plain(d.requiredScope)}`);
  if (d.nextAction) lines.push(`  next action: ${plain(d.nextAction)}`);
  // The service's own next action beats svc's generic advice.
  if (d.hint && !d.nextAction) lines.push(`  ${plain(d.hint)}`);
  // Any error that came from a service exchange names its request id, even when none was returned.
  if (d.status !== undefined || 'requestId' in d) {
    lines.push(`  request id: ${d.requestId === undefined ? '(none returned)' : plain(d.requestId)}${d.status ? `  (HTTP ${d.status})` : ''}`);
  }
  const [first = '', ...rest] = width === undefined ? lines : lines.flatMap((l) => wrapWords(l, width, '  '));
  stderr.write(`${[first.replace(/^error:/, paint('red', 'error:')), ...rest].join('\n')}\n`);
}

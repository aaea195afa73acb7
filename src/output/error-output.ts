import type { Writable } from 'node:stream';
import type { CliError } from '../errors.js';
import type { Paint } from '../ui/style.js';

/** Errors on stderr: the JSON envelope under --json (cli-contract 4), readable lines otherwise. */
export function writeError(stderr: Writable, err: CliError, json: boolean, paint: Paint): void {
  const d = err.details;
  if (json) {
    const envelope = {
      error: {
        code: d.code,
        message: err.message,
        requestId: d.requestId,
        requiredScope: d.requiredScope,
        nextAction: d.nextAction ?? d.hint,
        status: d.status,
      },
    };
    stderr.write(`${JSON.stringify(envelope)}\n`);
    return;
  }
  const lines = [`${paint('red', 'error:')} ${err.message}`];
  if (d.requiredScope) lines.push(`  required scope: ${d.requiredScope}`);
  if (d.nextAction) lines.push(`  next action: ${d.nextAction}`);
  if (d.hint && d.hint !== d.nextAction) lines.push(`  ${d.hint}`);
  if (d.status !== undefined || d.requestId !== undefined) {
    lines.push(`  request id: ${d.requestId ?? '(none returned)'}${d.status ? `  (HTTP ${d.status})` : ''}`);
  }
  stderr.write(`${lines.join('\n')}\n`);
}

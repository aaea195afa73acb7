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
        requestId: d.requestId ?? null,
        requiredScope: d.requiredScope,
        // The service's nextAction, or svc's own advice where the service gave none.
        nextAction: d.nextAction ?? d.hint,
        status: d.status ?? null,
      },
    };
    stderr.write(`${JSON.stringify(envelope)}\n`);
    return;
  }
  const lines = [`${paint('red', 'error:')} ${err.message}`];
  if (d.requiredScope) lines.push(`  required scope: ${d.requiredScope}`);
  if (d.nextAction) lines.push(`  next action: ${d.nextAction}`);
  // The service's own next action beats svc's generic advice.
  if (d.hint && !d.nextAction) lines.push(`  ${d.hint}`);
  // Any error that came from a service exchange names its request id, even when none was returned.
  if (d.status !== undefined || 'requestId' in d) {
    lines.push(`  request id: ${d.requestId ?? '(none returned)'}${d.status ? `  (HTTP ${d.status})` : ''}`);
  }
  stderr.write(`${lines.join('\n')}\n`);
}

/** Back to the first column, and the line cleared. */
const ERASE_LINE = '\r\x1b[K';
/** A write that leaves the cursor where a line starts: after a newline, or after a spinner cleared its line. */
const LINE_START = /(?:\n|\x1b\[[0-2]?K)$/;

/**
 * A Ctrl-C typed at a terminal is echoed by the terminal itself (`^C`) where the cursor stands, and
 * svc may hear of the signal only after it has written another line: that line would follow the
 * echo (`^Cerror: ...`). So on a terminal every write that starts a line first erases whatever the
 * terminal put there; a spinner keeps room for the echo after its frame and clears that line itself
 * (cli-contract 4, v4).
 */
export function eraseEchoAtLineStarts(stream: NodeJS.WriteStream): void {
  if (!stream.isTTY) return;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  let atLineStart = true;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && chunk.length > 0) {
      const text = atLineStart ? ERASE_LINE + chunk : chunk;
      atLineStart = LINE_START.test(chunk);
      return write(text, ...rest);
    }
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

/**
 * A Ctrl-C typed at a terminal is echoed by the terminal itself (`^C`) where the cursor stands,
 * before svc hears of it: at the start of an empty line, where the next line would follow it
 * (`^Cerror: ...`), or after a spinner's frame. The line is erased, so what svc says next starts
 * at the first column, and a spinner clearing its line leaves nothing behind (cli-contract 4, v4).
 */
export function eraseInterruptEcho(stream: NodeJS.WriteStream): void {
  if (stream.isTTY) stream.write('\r\x1b[K');
}

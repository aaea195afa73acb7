/**
 * What one message from the server may cost in memory on svc's side, whatever a SQL check returns
 * (cli-contract 9, v4 step 10). node-postgres's parser (pg-protocol) buffers each message whole
 * before it looks at it, so a row with a gigabyte value would be held whole. This sits between the
 * socket (or TLS stream) and that parser and rewrites the stream of backend messages as it passes:
 * - DataRow ('D'): each field is cut to `valueBytes` (its length rewritten), the rest skipped;
 * - ErrorResponse and NoticeResponse ('E', 'N'): each text field is cut to `textBytes`;
 * - any other message longer than `otherBytes` ends the connection with an error.
 * So a message costs at most its cut form (a row of 1664 columns, the server's limit, about 1.3 MB).
 */
export interface MessageBounds {
  valueBytes: number;
  textBytes: number;
  otherBytes: number;
}

type State = 'header' | 'pass' | 'count' | 'len' | 'data' | 'code' | 'text';

export class BoundedMessages {
  #state: State = 'header';
  readonly #small = Buffer.alloc(5);
  #need = 5;
  #got = 0;
  #type = 0;
  /** Bytes of the current message's body not yet read. */
  #left = 0;
  #fields = 0;
  #dataLeft = 0;
  #keepLeft = 0;
  #out: Buffer[] = [];
  #outBytes = 0;

  constructor(
    private readonly bounds: MessageBounds,
    private readonly emit: (chunk: Buffer) => void,
  ) {}

  /** Feeds bytes from the server; throws on a message that breaks the protocol or its bound. */
  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#state === 'pass') {
        const n = Math.min(this.#left, chunk.length - i);
        this.emit(chunk.subarray(i, i + n));
        i += n;
        this.#left -= n;
        if (this.#left === 0) this.#expect('header', 5);
      } else if (this.#state === 'data') {
        const n = Math.min(this.#dataLeft, chunk.length - i);
        const keep = Math.min(n, this.#keepLeft);
        // A copy: a slice would keep the whole socket chunk alive.
        if (keep > 0) this.#add(Buffer.from(chunk.subarray(i, i + keep)));
        this.#keepLeft -= keep;
        this.#dataLeft -= n;
        this.#left -= n;
        i += n;
        if (this.#dataLeft === 0) this.#nextField();
      } else if (this.#state === 'text') {
        const nul = chunk.indexOf(0, i);
        const end = nul === -1 ? chunk.length : nul;
        const n = end - i;
        if (n >= this.#left) throw new Error('the server sent a malformed message');
        const keep = Math.min(n, this.#keepLeft);
        if (keep > 0) this.#add(Buffer.from(chunk.subarray(i, i + keep)));
        this.#keepLeft -= keep;
        this.#left -= n;
        i = end;
        if (nul !== -1) {
          this.#add(Buffer.from([0]));
          this.#left -= 1;
          i += 1;
          this.#expect('code', 1);
        }
      } else {
        const n = Math.min(this.#need - this.#got, chunk.length - i);
        chunk.copy(this.#small, this.#got, i, i + n);
        this.#got += n;
        i += n;
        if (this.#got === this.#need) this.#fixed();
      }
    }
  }

  #expect(state: State, bytes: number): void {
    this.#state = state;
    this.#need = bytes;
    this.#got = 0;
  }

  #add(b: Buffer): void {
    this.#out.push(b);
    this.#outBytes += b.length;
  }

  /** A fixed-size piece is complete: a message header, a field count, a field length or a text field's code. */
  #fixed(): void {
    const s = this.#small;
    if (this.#state === 'header') {
      this.#type = s[0]!;
      this.#left = s.readUInt32BE(1) - 4;
      if (this.#left < 0) throw new Error('the server sent a malformed message');
      const type = String.fromCharCode(this.#type);
      this.#out = [];
      this.#outBytes = 0;
      if (type === 'D') return this.#expect('count', 2);
      if (type === 'E' || type === 'N') return this.#expect('code', 1);
      if (this.#left > this.bounds.otherBytes) throw new Error(`the server sent a message of ${this.#left} bytes (type ${type}), more than svc reads`);
      this.emit(Buffer.from(s));
      if (this.#left === 0) this.#expect('header', 5);
      else this.#state = 'pass';
      return;
    }
    if (this.#state === 'count') {
      this.#left -= 2;
      this.#fields = s.readUInt16BE(0);
      this.#add(Buffer.from(s.subarray(0, 2)));
      return this.#nextField();
    }
    if (this.#state === 'len') {
      this.#left -= 4;
      this.#fields -= 1;
      const len = s.readInt32BE(0);
      if (len > this.#left) throw new Error('the server sent a malformed message');
      if (len <= 0) {
        this.#add(Buffer.from(s.subarray(0, 4)));
        return this.#nextField();
      }
      const keep = Math.min(len, this.bounds.valueBytes);
      const head = Buffer.alloc(4);
      head.writeInt32BE(keep);
      this.#add(head);
      this.#dataLeft = len;
      this.#keepLeft = keep;
      return this.#expect('data', 0);
    }
    // A text field's code; 0 ends the message.
    this.#left -= 1;
    this.#add(Buffer.from(s.subarray(0, 1)));
    if (s[0] === 0) return this.#finish();
    if (this.#left <= 0) throw new Error('the server sent a malformed message');
    this.#keepLeft = this.bounds.textBytes;
    this.#expect('text', 0);
  }

  #nextField(): void {
    if (this.#fields > 0) return this.#expect('len', 4);
    this.#finish();
  }

  /** The cut message, whole: its header with the new length, then its body. */
  #finish(): void {
    if (this.#left !== 0) throw new Error('the server sent a malformed message');
    const head = Buffer.alloc(5);
    head[0] = this.#type;
    head.writeUInt32BE(this.#outBytes + 4, 1);
    this.emit(Buffer.concat([head, ...this.#out]));
    this.#out = [];
    this.#outBytes = 0;
    this.#expect('header', 5);
  }
}

/**
 * JSON text of a value, indented by `indent` spaces, or compact: the writer's one serialiser.
 * `column`: where its lines will start, for a terminal's width (an item inside the document).
 */
export type Serialise = (value: unknown, indent?: number, column?: number) => string;

/**
 * The merged list of --all and --paginate written as its pages arrive (cli-contract 6), as the
 * same text the serialiser gives for the whole document: `head`'s fields in their order, the
 * `itemsKey` array holding every item handed to items(), then a newline. Only the page being
 * written is held. A run that fails before end() leaves the document unterminated, and its exit
 * code says so, as with any stream.
 */
export class MergedDocument {
  readonly #serialise: Serialise;
  readonly #write: (text: string) => Promise<void>;
  readonly #indent: number | undefined;
  /** The text before the items array, and after it; the before part is written with the first items. */
  #before: string | undefined;
  readonly #after: string;
  readonly #wholePages: boolean;
  #count = 0;

  /** `wholePages`: the serialiser lays out a value the same wherever it sits, so a page's items are serialised in one go. */
  constructor(
    head: Record<string, unknown>,
    itemsKey: string,
    indent: number | undefined,
    serialise: Serialise,
    write: (text: string) => Promise<void>,
    opts: { wholePages?: boolean } = {},
  ) {
    this.#serialise = serialise;
    this.#write = write;
    this.#indent = indent;
    this.#wholePages = opts.wholePages ?? false;
    // The document with an array holding a marker where the items go, so the fields around it come
    // out exactly as the serialiser orders, indents and fits them; a random marker, so no text of
    // the service matches it. Only whitespace separates it from the array's brackets.
    const marker = JSON.stringify(`\u0000svc-items-${globalThis.crypto.randomUUID()}`);
    const skeleton = serialise({ ...head, [itemsKey]: [JSON.parse(marker) as string] }, indent);
    const at = skeleton.indexOf(marker);
    if (at < 0 || skeleton.lastIndexOf(marker) !== at) throw new Error(`MergedDocument: the ${itemsKey} array has no single place in the document`);
    this.#before = skeleton.slice(0, skeleton.lastIndexOf('[', at));
    this.#after = skeleton.slice(skeleton.indexOf(']', at + marker.length) + 1);
  }

  /** The next items, in order; resolves once stdout can take more. */
  async items(items: unknown[]): Promise<void> {
    if (items.length === 0) return;
    const text = `${this.#before ?? ''}${this.#count === 0 ? '[' : ','}${this.#wholePages ? this.#page(items) : items.map((item) => this.#item(item)).join(',')}`;
    this.#before = undefined;
    this.#count += items.length;
    await this.#write(text);
  }

  /**
   * A page's items as they sit in the document, separated by commas, from one serialisation: of the
   * array (compact), or of an object holding it (pretty), which puts the items at their depth.
   */
  #page(items: unknown[]): string {
    if (this.#indent === undefined) return this.#serialise(items).slice(1, -1);
    const pad = ' '.repeat(this.#indent);
    const [open, close] = [`{\n${pad}"items": [`, `\n${pad}]\n}`];
    const text = this.#serialise({ items }, this.#indent);
    if (!text.startsWith(open) || !text.endsWith(close)) throw new Error('MergedDocument: a page did not serialise as an indented array');
    return text.slice(open.length, -close.length);
  }

  /** Closes the array and the document. */
  async end(): Promise<void> {
    const close = this.#count === 0 ? '[]' : this.#indent === undefined ? ']' : `\n${' '.repeat(this.#indent)}]`;
    await this.#write(`${this.#before ?? ''}${close}${this.#after}\n`);
    this.#before = undefined;
  }

  /** One item as it sits in the document: an element of an array that is a field of the top-level object. */
  #item(item: unknown): string {
    if (this.#indent === undefined) return this.#serialise(item);
    const text = this.#serialise(item, this.#indent, 2 * this.#indent);
    // JSON strings hold no raw newline, so every newline here starts a line of the item's own layout.
    const pad = ' '.repeat(2 * this.#indent);
    return `\n${pad}${text.replaceAll('\n', `\n${pad}`)}`;
  }
}

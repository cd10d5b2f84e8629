// TOON for a root array of any length, a batch of elements at a time, in bounded memory. The
// shape observes every element and decides the array's form exactly as the codec does for the
// whole array (§9: inline primitives, a table when every row fits the first row's layout, else
// a list); each batch is encoded by the codec itself as a small document whose first lines are
// dropped, so every character of the output is the codec's own: `header + batches` equals
// `encode(wholeArray)`. Batches may be written as elements are observed (the form can only
// change from inline or table to list, which voids them), the header, which counts the
// elements, once all are.
import { encode } from '../../codec/encode.js';
import { type Field, fitsLayout, isPrimitive, sharedLayout } from '../../codec/layout.js';
import type { EncodeOptions, JsonValue } from '../../codec/types.js';

/** Elements encoded together in pass 2. */
export const BATCH_ROWS = 2000;

/** A root array's TOON form: none yet, inline primitives, a table (§9.3) or a list. */
export type ArrayForm = 'empty' | 'inline' | 'table' | 'list';

/**
 * Observes a root array's elements one at a time and writes its TOON text a batch at a time (in
 * one pass while {@link ArrayShape.form} holds, else after observing them all).
 *
 * @example
 * const shape = new ArrayShape({ delimiter: ',' });
 * for (const row of rows) shape.observe(row);
 * let text = shape.header();
 * text += shape.batch(rows.slice(0, 2000));
 */
export class ArrayShape {
  private count = 0;
  private first: JsonValue | undefined;
  /** The first element's table layout, which every other element must fit. */
  private layout: Field[] | undefined;
  private primitives = true;
  private table = true;
  private written = 0;

  constructor(private readonly options: EncodeOptions = {}) {}

  /** One more element. Throws what `encode` would throw for it (too deep, ...). */
  observe(value: JsonValue): void {
    this.count++;
    if (this.first === undefined) {
      this.first = value;
      this.layout = sharedLayout([value]);
      if (this.layout === undefined) this.table = false;
    } else if (this.table && !fitsLayout(value, this.layout!)) {
      this.table = false;
    }
    if (this.primitives && !isPrimitive(value)) this.primitives = false;
  }

  /** This shape, ready to write its elements from the first again (after sizing batches). */
  rewound(): this {
    this.written = 0;
    return this;
  }

  /** Whether the observed elements form a table (§9.3). */
  get isTable(): boolean {
    return this.form === 'table';
  }

  /** The number of elements observed. */
  get length(): number {
    return this.count;
  }

  /**
   * The form of the elements observed so far. More elements can only turn `inline` or `table`
   * into `list` (so batches written in an earlier form are void once it changes).
   */
  get form(): ArrayForm {
    if (this.count === 0) return 'empty';
    if (this.primitives) return 'inline';
    return this.table ? 'table' : 'list';
  }

  /** The header line for the elements observed (the whole text for an empty array). */
  header(): string {
    const form = this.form;
    if (form === 'empty') return encode([], this.options);
    const sample =
      form === 'inline' ? [this.first!] : form === 'table' ? [this.first!, this.first!] : [[], []];
    const line = firstLine(encode(sample, this.options));
    const header = line.replace(/^\[\d+/, `[${this.count}`);
    // An inline array's header ends with ': ' and its values follow on the same line.
    return form === 'inline' ? header.slice(0, header.indexOf(']: ') + 3) : header;
  }

  /** The text of the next elements, in order, each line preceded by its newline. */
  batch(values: readonly JsonValue[]): string {
    if (values.length === 0) return '';
    const form = this.form;
    const before = this.written;
    this.written += values.length;
    if (form === 'inline') {
      const text = encode(values, this.options);
      const cells = text.slice(text.indexOf(']: ') + 3);
      return before === 0 ? cells : `${this.delimiter}${cells}`;
    }
    // A table keeps the first row in front so the batch is a table with the same header; a list
    // gets an empty array in front so the batch is never a table or inline on its own.
    const lead: JsonValue = form === 'table' ? this.first! : [];
    const text = encode([lead, ...values], this.options);
    return afterLines(text, 2);
  }

  /** The element a batch document starts with (see {@link document}). */
  lead(): JsonValue {
    return this.form === 'table' ? this.first! : [];
  }

  /**
   * A whole TOON document whose elements are {@link lead} and then `values` (for inline
   * arrays, `values` alone, with lead dropped by the caller's comparison): what a batch's lines
   * were cut from, so decoding it checks them.
   */
  document(values: readonly JsonValue[]): string {
    return encode([this.lead(), ...values], this.options);
  }

  private get delimiter(): string {
    return this.options.delimiter ?? ',';
  }
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}

/** `text` from the newline that ends its first `lines` lines (that newline included). */
function afterLines(text: string, lines: number): string {
  let at = -1;
  for (let i = 0; i < lines; i++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0) return '';
  }
  return text.slice(at);
}

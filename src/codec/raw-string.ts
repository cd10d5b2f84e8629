// Pre-formatted text a replacer (or the value itself) can place at a primitive position.

/**
 * Text the encoder writes verbatim at a primitive position (object field value, inline array
 * value, table cell, list item), without quoting, escaping or number/keyword detection. At a
 * container position (a replacer returning one for an object or array) it is ignored and the
 * container is encoded normally, as in the reference implementation.
 */
export class RawString {
  // Named in the minified package root too (see ToonDecodeError): `value.constructor.name`.
  static {
    Object.defineProperty(RawString, 'name', { value: 'RawString' });
  }
  readonly value: string;
  constructor(value: string) {
    if (typeof value !== 'string')
      throw new TypeError(`rawString expects a string, got ${typeof value}`);
    if (COMMENT_LINE.test(value)) {
      throw new TypeError(
        `a raw string must not contain a line starting with "#", which would read back as a comment (§5.1): ${JSON.stringify(value.slice(0, 40))}; quote that text, for example with rawString(\`"\${escapeString(text)}"\`)`,
      );
    }
    this.value = value;
  }
}

/**
 * A line of raw text that would read back as a comment line (§5.1): `#` after only spaces, at
 * the start of the text (a byte order mark before it included) or after a line feed. The
 * reference implementation refuses the same texts.
 */
const COMMENT_LINE = /(?:^\uFEFF?|\n) *#/;

/**
 * Wraps pre-formatted text for verbatim emission, typically returned from an encode `replacer`.
 * You are responsible for the text being valid TOON at that position; combine it with
 * {@link escapeString} to control quoting yourself. A text with a line that starts with `#` (at
 * the start, after a byte order mark or after a line feed, spaces allowed before it) is a
 * `TypeError`, as in the reference implementation: written out, that line would be a comment.
 *
 * @example
 * encode({ id: 7 }, { replacer: (key, value) => (key === 'id' ? rawString(`"${value}"`) : value) });
 * // 'id: "7"'
 * rawString('#7'); // TypeError: a raw string must not contain a line starting with "#" ...
 */
export function rawString(value: string): RawString {
  return new RawString(value);
}

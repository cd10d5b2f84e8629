// Pre-formatted text a replacer (or the value itself) can place at a primitive position.

/**
 * Text the encoder writes verbatim at a primitive position (object field value, inline array
 * value, table cell, list item), without quoting, escaping or number/keyword detection. At a
 * container position (a replacer returning one for an object or array) it is ignored and the
 * container is encoded normally, as in the reference implementation.
 */
export class RawString {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
}

/**
 * Wraps pre-formatted text for verbatim emission, typically returned from an encode `replacer`.
 * You are responsible for the text being valid TOON at that position; combine it with
 * {@link escapeString} to control quoting yourself.
 *
 * @example
 * encode({ id: 7 }, { replacer: (key, value) => (key === 'id' ? rawString(`"${value}"`) : value) });
 * // 'id: "7"'
 */
export function rawString(value: string): RawString {
  if (typeof value !== 'string')
    throw new TypeError(`rawString expects a string, got ${typeof value}`);
  return new RawString(value);
}

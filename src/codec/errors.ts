/** Where a {@link ToonDecodeError} happened, beyond its line and column. */
export interface ToonDecodeErrorContext {
  /** The raw source line (indentation included, line terminator excluded). */
  source?: string;
  /** For byte input: the 0-based byte offset of the problem in the input. */
  offset?: number;
}

/**
 * The context of the reference implementation's constructor form,
 * `new ToonDecodeError(message, { line, source, cause })`.
 */
export interface ReferenceErrorContext {
  /** 1-based line of the problem; without it the message has no `Line N:` prefix. */
  line?: number;
  /** The raw source line. */
  source?: string;
  /** The error this one wraps (the standard `Error` `cause`). */
  cause?: unknown;
}

/**
 * The one error `decode` throws, for every malformed input. `line` and `column` are 1-based and
 * point at the offending character of the original text; the message starts with `Line N:`, as
 * the reference implementation's do, so it reads well on its own (for example in an HTTP 400
 * problem document) and code that strips that prefix keeps working. Like the reference's, it
 * extends `SyntaxError` and carries the raw `source` line; `reason` is the message without the
 * prefix: what is wrong and what to do about it.
 *
 * Both constructor forms work: toonwire's `(reason, line, column?, { source, offset })`, and the
 * reference's `(message, { line, source, cause })`, which code written for `@toon-format/toon`
 * uses (its column is then 1, its message `Line N: message` as the reference writes it).
 *
 * @example
 * try {
 *   decode('items[2]: a');
 * } catch (error) {
 *   if (error instanceof ToonDecodeError) console.error(error.line, error.column, error.source);
 * }
 * new ToonDecodeError('boom', { line: 2, source: 'x' }).message; // 'Line 2: boom'
 */
export class ToonDecodeError extends SyntaxError {
  // The package root is minified (scripts/bundle-root.mjs), which renames classes: without this
  // the class's own name would be one letter, which `console.log(error)`, error reporters and
  // `error.constructor.name` checks show.
  static {
    Object.defineProperty(ToonDecodeError, 'name', { value: 'ToonDecodeError' });
  }
  override readonly name = 'ToonDecodeError';
  /** 1-based line of the problem. */
  readonly line: number;
  /** 1-based column of the problem, counted in Unicode characters (1 when not known). */
  readonly column: number;
  /** The message without the `Line N:` prefix. */
  readonly reason: string;
  /** The raw line the problem is on, when known. */
  readonly source: string | undefined;
  /** For byte input only: the 0-based byte offset of ill-formed UTF-8. */
  readonly offset: number | undefined;

  constructor(reason: string, line: number, column?: number, context?: ToonDecodeErrorContext);
  constructor(message: string, context?: ReferenceErrorContext);
  constructor(
    reason: string,
    where?: number | ReferenceErrorContext | null,
    column = 1,
    context?: ToonDecodeErrorContext,
  ) {
    // The reference's form, whose context and line are both optional (as its types say): with
    // no line, the message has no prefix and `line` is undefined, as in the reference. A `null`
    // context is no context there too (its `context?.line`).
    const reference = typeof where === 'number' ? undefined : (where ?? {});
    const line = reference === undefined ? (where as number) : (reference.line as number);
    const prefix = line === undefined ? '' : `Line ${line}: `;
    super(prefix + reason, reference?.cause !== undefined ? { cause: reference.cause } : undefined);
    this.line = line;
    this.column = reference === undefined ? column : 1;
    this.reason = reason;
    this.source = reference === undefined ? context?.source : reference.source;
    this.offset = reference === undefined ? context?.offset : undefined;
  }
}

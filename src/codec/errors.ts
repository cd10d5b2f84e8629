/** Where a {@link ToonDecodeError} happened, beyond its line and column. */
export interface ToonDecodeErrorContext {
  /** The raw source line (indentation included, line terminator excluded). */
  source?: string;
  /** For byte input: the 0-based byte offset of the problem in the input. */
  offset?: number;
}

/**
 * The one error `decode` throws, for every malformed input. `line` and `column` are 1-based and
 * point at the offending character of the original text; the message starts with `line N:` so
 * it reads well on its own (for example in an HTTP 400 problem document). Like the reference
 * implementation's, it extends `SyntaxError` and carries the raw `source` line.
 *
 * @example
 * try {
 *   decode('items[2]: a');
 * } catch (error) {
 *   if (error instanceof ToonDecodeError) console.error(error.line, error.column, error.source);
 * }
 */
export class ToonDecodeError extends SyntaxError {
  override readonly name = 'ToonDecodeError';
  /** 1-based line of the problem. */
  readonly line: number;
  /** 1-based column of the problem, counted in Unicode characters. */
  readonly column: number;
  /** The message without the `line N:` prefix. */
  readonly reason: string;
  /** The raw line the problem is on, when known. */
  readonly source: string | undefined;
  /** For byte input only: the 0-based byte offset of ill-formed UTF-8. */
  readonly offset: number | undefined;

  constructor(reason: string, line: number, column = 1, context?: ToonDecodeErrorContext) {
    super(`line ${line}: ${reason}`);
    this.line = line;
    this.column = column;
    this.reason = reason;
    this.source = context?.source;
    this.offset = context?.offset;
  }
}

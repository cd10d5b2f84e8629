/**
 * The one error `decode` throws, for every malformed input. `line` and `column` are 1-based and
 * point at the offending character of the original text; the message starts with `line N:` so
 * it reads well on its own (for example in an HTTP 400 problem document).
 *
 * @example
 * try {
 *   decode('items[2]: a');
 * } catch (error) {
 *   if (error instanceof ToonDecodeError) console.error(error.line, error.column, error.message);
 * }
 */
export class ToonDecodeError extends SyntaxError {
  override readonly name = 'ToonDecodeError';
  /** 1-based line of the problem. */
  readonly line: number;
  /** 1-based column of the problem. */
  readonly column: number;
  /** The message without the `line N:` prefix. */
  readonly reason: string;

  constructor(reason: string, line: number, column = 1) {
    super(`line ${line}: ${reason}`);
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

// The character scanner's error for a malformed streamed array, as `line:column: message`: what
// the scanner's tests expect and what the batch reader must report alike.
import assert from 'node:assert/strict';
import { ArrayScanner, ArraySyntaxError } from '../../src/cli/stream/array-scanner.js';

/**
 * The error the scanner (and JSON.parse of each element it finds) throws for `text`.
 *
 * @example
 * scannerFailure('[1,]'); // "1:4: unexpected ']'; expected a value"
 */
export function scannerFailure(text: string): string {
  const scanner = new ArrayScanner();
  try {
    for (const element of [...scanner.push(text), ...scanner.end()]) {
      try {
        JSON.parse(element.text);
      } catch {
        throw scanner.locate(element);
      }
    }
  } catch (error) {
    assert.ok(error instanceof ArraySyntaxError);
    return `${error.line}:${error.column}: ${error.message}`;
  }
  assert.fail(`no error for ${text}`);
}

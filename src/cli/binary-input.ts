// Binary files given as input (an executable, an image, an archive): their bytes are not UTF-8,
// and the usual advice for that (convert from Latin-1) would be wrong. A NUL byte near the start
// tells them apart: text formats, JSON and TOON included, never contain a raw NUL.
import { CliError, EXIT_DATA } from './errors.js';

/** How far into the input a NUL byte is looked for. */
const SNIFF_BYTES = 8192;

/**
 * The byte offset of the first NUL byte in the first 8 KiB of `bytes`, or -1: binary files
 * have one there, text files none.
 *
 * @example
 * binaryOffset(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00])); // 7 (an ELF header)
 * binaryOffset(new TextEncoder().encode('{"a":1}')); // -1
 */
export function binaryOffset(bytes: Uint8Array): number {
  return bytes.subarray(0, SNIFF_BYTES).indexOf(0);
}

/**
 * The error for an input that is a binary file rather than text.
 *
 * @example
 * throw binaryInputError('/bin/ls', 7, 'JSON'); // "toonwire: /bin/ls: not a text file: ..."
 */
export function binaryInputError(source: string, offset: number, format: string): CliError {
  return new CliError(
    `${source}: not a text file (a NUL byte at byte offset ${offset}, as in executables, images and archives); ${format} input must be UTF-8 text: check that this is the file you meant`,
    EXIT_DATA,
  );
}

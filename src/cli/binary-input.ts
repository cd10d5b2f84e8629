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

/** Bytes looked at by {@link bomlessUtf16}. */
const UTF16_SNIFF_BYTES = 512;

/**
 * `UTF-16LE` or `UTF-16BE` when `bytes` look like UTF-16 text without a byte order mark (a NUL
 * beside nearly every other byte, as ASCII characters are in UTF-16), else undefined.
 *
 * @example
 * bomlessUtf16(new Uint8Array([0x7b, 0, 0x7d, 0])); // 'UTF-16LE'
 * bomlessUtf16(new TextEncoder().encode('{}')); // undefined
 */
export function bomlessUtf16(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | undefined {
  const length = Math.min(bytes.length, UTF16_SNIFF_BYTES) & ~1;
  if (length < 4) return undefined;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < length; i += 2) {
    if (bytes[i] === 0) evenNul++;
    if (bytes[i + 1] === 0) oddNul++;
  }
  const units = length / 2;
  // Most characters of JSON and TOON are ASCII: nine in ten units with their high byte NUL.
  if (oddNul >= units * 0.9 && evenNul === 0) return 'UTF-16LE';
  if (evenNul >= units * 0.9 && oddNul === 0) return 'UTF-16BE';
  return undefined;
}

/**
 * The error for UTF-16 input without a byte order mark ({@link bomlessUtf16}), with the command
 * that converts it.
 *
 * @example
 * throw bomlessUtf16Error('data.json', 'UTF-16LE'); // "toonwire: data.json: looks like UTF-16LE without a byte order mark ..."
 */
export function bomlessUtf16Error(source: string, encoding: 'UTF-16LE' | 'UTF-16BE'): CliError {
  return new CliError(
    `${source}: looks like ${encoding} without a byte order mark (a NUL byte beside each ASCII character); JSON and TOON input must be UTF-8, or UTF-16 that starts with a byte order mark: convert it with \`iconv -f ${encoding} -t UTF-8\``,
    EXIT_DATA,
  );
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

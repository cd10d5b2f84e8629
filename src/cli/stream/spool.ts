// A temporary file that holds text written before the text that must come first is known: the
// streaming encoder writes a root array's rows as it reads them and learns the array's length
// (its header) only at the end. The file is deleted as soon as it is opened, and used through
// its descriptor alone, so nothing is left behind however the process ends (Ctrl-C included).
// Text is encoded as UTF-8 straight into one reused buffer and written about a megabyte at a
// time, and read back as bytes through one reused buffer, never decoded again: no text is held
// (held text outlives young-generation collections and is copied into the old one) and no
// megabyte string or buffer is made per write (each would be fresh memory, faulted in page by
// page; that was a third of the streaming encode's system time).
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { written } from '../input.js';

/** Bytes gathered before one write to the file, and read back at a time. */
const BUFFER_BYTES = 1 << 20;
/** The most UTF-8 bytes one UTF-16 code unit can take (a lone surrogate's U+FFFD, or U+0800+). */
const MAX_BYTES_PER_UNIT = 3;

/**
 * Text set aside in a temporary file (in the system's temporary directory), then copied out.
 *
 * @example
 * const spool = Spool.open(); // undefined when no temporary file can be made
 * spool?.write('\n  1,2');
 * await spool?.copyTo(process.stdout);
 * spool?.close();
 */
export class Spool {
  private readonly buffer = Buffer.allocUnsafeSlow(BUFFER_BYTES);
  /** Bytes of `buffer` not yet written to the file. */
  private used = 0;

  private constructor(private fd: number | undefined) {}

  /** A new, empty spool; undefined when the temporary directory cannot be written. */
  static open(): Spool | undefined {
    let dir: string | undefined;
    try {
      dir = mkdtempSync(join(tmpdir(), 'toonwire-encode-'));
      return new Spool(openSync(join(dir, 'rows.toon'), 'w+'));
    } catch {
      return undefined;
    } finally {
      // Deleted at once: the descriptor keeps the file until it is closed.
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Appends `text`. */
  write(text: string): void {
    // The bound, not the exact size: `Buffer.write` stops short at a character that does not
    // fit, so room for the worst case is made first (measuring exactly would read the text twice).
    const most = text.length * MAX_BYTES_PER_UNIT;
    if (this.used + most > BUFFER_BYTES) this.flush();
    if (most > BUFFER_BYTES) {
      writeAll(this.fd!, Buffer.from(text, 'utf8'));
      return;
    }
    this.used += this.buffer.write(text, this.used, 'utf8');
  }

  /** Copies everything written to `out` (left open), as bytes. */
  async copyTo(out: NodeJS.WritableStream): Promise<void> {
    this.flush();
    // Two buffers taken in turn: one is read into while the other may still be queued by `out`.
    const buffers = [this.buffer, Buffer.allocUnsafeSlow(BUFFER_BYTES)];
    let position = 0;
    let pending: Promise<void> | undefined;
    for (let turn = 0; ; turn++) {
      const buffer = buffers[turn & 1]!;
      const read = readSync(this.fd!, buffer, 0, buffer.length, position);
      if (read === 0) break;
      position += read;
      await pending;
      pending = written(out, buffer.subarray(0, read));
    }
    await pending;
  }

  /** Closes the file, which frees its space (safe to call more than once). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Writes what is gathered in memory to the file. */
  flush(): void {
    if (this.used === 0) return;
    writeAll(this.fd!, this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

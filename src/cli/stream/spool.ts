// A temporary file that holds text written before the text that must come first is known: the
// streaming encoder writes a root array's rows as it reads them and learns the array's length
// (its header) only at the end. The file is deleted as soon as it is opened, and used through
// its descriptor alone, so nothing is left behind however the process ends (Ctrl-C included).
// Text is gathered into writes of about a megabyte, and read back as bytes, never decoded again.
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/** Text gathered before one write to the file. */
const WRITE_CHARS = 1 << 20;

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
  private parts: string[] = [];
  private size = 0;

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
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= WRITE_CHARS) this.flush();
  }

  /** Copies everything written to `out` (left open), as bytes. */
  async copyTo(out: NodeJS.WritableStream): Promise<void> {
    this.flush();
    const input = createReadStream('', {
      fd: this.fd!,
      start: 0,
      autoClose: false,
      highWaterMark: 1 << 20,
    });
    await pipeline(input, out, { end: false });
  }

  /** Closes the file, which frees its space (safe to call more than once). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private flush(): void {
    if (this.size === 0) return;
    const bytes = Buffer.from(this.parts.join(''));
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd!, bytes, at);
    this.parts = [];
    this.size = 0;
  }
}

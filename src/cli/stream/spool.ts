// A temporary file that holds text written before the text that must come first is known: the
// streaming encoder writes a root array's rows as it reads them and learns the array's length
// (its header) only at the end. Text is gathered into writes of about a megabyte, and read back
// as bytes, never decoded again.
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  rmSync,
  type WriteStream,
  writeSync,
} from 'node:fs';
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
 * spool?.remove();
 */
export class Spool {
  private parts: string[] = [];
  private size = 0;
  private fd: number | undefined;

  private constructor(
    private readonly dir: string,
    private readonly file: string,
  ) {
    this.fd = openSync(file, 'w');
  }

  /** A new, empty spool; undefined when the temporary directory cannot be written. */
  static open(): Spool | undefined {
    let dir: string | undefined;
    try {
      dir = mkdtempSync(join(tmpdir(), 'toonwire-encode-'));
      return new Spool(dir, join(dir, 'rows.toon'));
    } catch {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      return undefined;
    }
  }

  /** Appends `text`. */
  write(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= WRITE_CHARS) this.flush();
  }

  /** Copies everything written to `out` (left open), as bytes. */
  async copyTo(out: NodeJS.WritableStream | WriteStream): Promise<void> {
    this.flush();
    closeSync(this.fd!);
    this.fd = undefined;
    await pipeline(createReadStream(this.file, { highWaterMark: 1 << 20 }), out, { end: false });
  }

  /** Deletes the file (safe to call more than once). */
  remove(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private flush(): void {
    if (this.size === 0) return;
    const bytes = Buffer.from(this.parts.join(''));
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd!, bytes, at);
    this.parts = [];
    this.size = 0;
  }
}

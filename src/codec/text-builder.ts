// Long strings built from many small pieces (the text of a quoted string with escapes, for the
// decoder) without one rope node per piece. The encoder needs none: JSON.stringify writes its
// escapes (see quote in lexical.ts).

/** Code units are collected here and turned into one string per chunk. */
const CHUNK = 8192;
/**
 * The one buffer every builder writes to. Builders are used one at a time (each is finished
 * before the next starts; nothing they call builds another), so one buffer serves them all and
 * no builder allocates one.
 */
const units = new Uint16Array(CHUNK);
/** Runs at least this long are sliced from their text instead of copied unit by unit. */
const SLICED_RUN = 512;

/**
 * Builds a string from runs of another text and single code units. Appending each piece to a
 * string makes a rope node per piece: for an escape-heavy 200 MB string that took about 25 times
 * its size in memory, and minutes to flatten. Here pieces are one per chunk of 8192 code units or
 * per long run, so the result costs little more than its own size.
 *
 * @example
 * const out = new TextBuilder();
 * out.run('say "hi"', 0, 4);
 * out.unit(0x21);
 * out.finish(); // 'say !'
 */
export class TextBuilder {
  /** The finished part: one piece per slice or full chunk. */
  private value = '';
  private used = 0;

  /** Appends `text[from, to)`: copied when short, sliced (after what is buffered) when long. */
  run(text: string, from: number, to: number): void {
    if (to - from >= SLICED_RUN) {
      this.flush();
      this.value += text.slice(from, to);
      return;
    }
    for (let i = from; i < to; i++) this.unit(text.charCodeAt(i));
  }

  /** Appends every code unit of a short string (an escape sequence). */
  units(piece: string): void {
    for (let i = 0; i < piece.length; i++) this.unit(piece.charCodeAt(i));
  }

  /** Appends one UTF-16 code unit. */
  unit(code: number): void {
    if (this.used === CHUNK) this.flush();
    units[this.used++] = code;
  }

  /** The string built; the builder must not be used afterwards. */
  finish(): string {
    this.flush();
    return this.value;
  }

  private flush(): void {
    if (this.used === 0) return;
    this.value += String.fromCharCode.apply(null, units.subarray(0, this.used) as never);
    this.used = 0;
  }
}

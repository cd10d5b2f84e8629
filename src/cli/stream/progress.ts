// Progress on stderr for one long file: bytes read of the total, redrawn on a terminal. stdout
// carries the command's output, so progress never goes there.
import { formatSize } from '../format.js';

/** Inputs at least this large show progress (when stderr is a terminal). */
export const PROGRESS_BYTES = 64 * 1024 * 1024;

/** Reports bytes read in one pass over a file; `done` clears the line. */
export interface ByteProgress {
  pass(label: string): (bytesRead: number) => void;
  done(): void;
}

/**
 * A progress line for a file of `total` bytes, or a silent one when `enabled` is false.
 *
 * @example
 * const progress = byteProgress('big.jsonl', size, process.stderr.isTTY === true && size > PROGRESS_BYTES);
 * for await (const row of readRows('big.jsonl', 'jsonl', progress.pass('pass 1 of 2'))) count++;
 * progress.done();
 */
export function byteProgress(
  name: string,
  total: number | undefined,
  enabled: boolean,
): ByteProgress {
  let last = 0;
  let shown = false;
  return {
    pass(label) {
      return (bytesRead) => {
        if (!enabled) return;
        const now = Date.now();
        if (now - last < 200 && bytesRead !== total) return;
        last = now;
        shown = true;
        const of =
          total === undefined
            ? ''
            : ` of ${formatSize(total)} (${Math.floor((bytesRead / total) * 100)}%)`;
        process.stderr.write(`\r\x1b[K${name}: ${label}: ${formatSize(bytesRead)}${of}`);
      };
    },
    done() {
      if (shown) process.stderr.write('\r\x1b[K');
    },
  };
}

// A progress indicator on stderr for long reports. stdout carries the report itself, so progress
// never goes there; on a terminal it redraws one line, elsewhere it is off unless asked for.

/** Receives one call per payload measured. */
export interface Progress {
  step(label: string): void;
  done(): void;
}

/** How progress is shown: redrawn line, one line per step, or not at all. */
export type ProgressMode = 'tty' | 'lines' | 'off';

/** Inputs larger than this (in bytes, all files together) count as large. */
export const LARGE_INPUT_BYTES = 1_000_000;

/**
 * Chooses the mode: `--progress` forces it on (a redrawn line on a terminal, plain lines
 * otherwise), `--no-progress` off; by default it shows only on a terminal for large input.
 */
export function progressMode(
  option: boolean | undefined,
  stderrIsTTY: boolean,
  inputBytes: number,
): ProgressMode {
  if (option === false) return 'off';
  if (option === true) return stderrIsTTY ? 'tty' : 'lines';
  return stderrIsTTY && inputBytes >= LARGE_INPUT_BYTES ? 'tty' : 'off';
}

/**
 * A progress indicator counting up to `total`.
 *
 * @example
 * const progress = createProgress(19, 'tty', (text) => process.stderr.write(text));
 * progress.step('corpus/get-actor-run-list/actor-runs-50.json');
 * progress.done();
 */
export function createProgress(
  total: number,
  mode: ProgressMode,
  write: (text: string) => void,
): Progress {
  let count = 0;
  return {
    step(label) {
      count += 1;
      const text = `measuring ${count}/${total} ${label}`;
      if (mode === 'tty') write(`\r\x1b[K${text}`);
      else if (mode === 'lines') write(`${text}\n`);
    },
    done() {
      if (mode === 'tty') write('\r\x1b[K');
    },
  };
}

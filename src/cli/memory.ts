// Full garbage collections on request, for the report between the steps of a large payload.
// V8 sizes its heap to a multiple (up to 4x) of what was alive at its last full collection and
// collects again only when that fills up, so a report that holds a 10 MB payload while it makes
// and drops ~200 MB of texts and decoded copies would otherwise peak at several times what it
// needs, and the next file starts from that heap: `toonwire report` on 40 files of 10 MB rose to
// 640 MB. Collecting where the previous step's garbage is all dead keeps the heap near the live
// data (bench/scale.bench.ts measures it).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = () => void;

/** V8's `gc`, `null` where the runtime does not offer it, `undefined` until first asked for. */
let collector: Collect | null | undefined;

/**
 * Runs a full garbage collection now, where the runtime allows one (Node: V8's `gc`, exposed
 * without `--expose-gc` on the command line), and does nothing elsewhere. Each call costs a
 * full mark-compact (tens of milliseconds with ~60 MB alive), so call it only where a large
 * amount of garbage has just been let go.
 *
 * @example
 * const result = measurePayload(value, { ...settings, afterStep: collectGarbage }); // a 10 MB file
 */
export function collectGarbage(): void {
  if (collector === undefined) collector = loadCollector();
  collector?.();
}

function loadCollector(): Collect | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collect;
  try {
    // The flag applies to contexts created while it is set: a new context gets `gc` on its
    // global, and that function collects the whole heap. It is unset again at once.
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as Collect) : null;
  } catch {
    return null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

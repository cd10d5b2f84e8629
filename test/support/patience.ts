// Hang guards for tests that pass on a busy machine.
//
// A test that waits for a child process, a socket or a message needs a guard against a hang, but
// a fixed limit (20 s for a CLI run, 2 s for an `initialize`) fails on a machine whose cores are
// shared with other work: there everything takes several times longer, and nothing is wrong.
// So a guard here is generous to begin with and is multiplied by the slowdown measured in this
// process: the larger of two measures of how contended the CPUs are. One is the wall-clock time
// of a fixed CPU-bound workload divided by the CPU time it got (about 1 on an idle machine, 2
// with twice as many runnable processes as cores); it sees this moment but, over a few tens of
// milliseconds, the scheduler can hand a fresh process a whole time slice, so it can read low.
// The other is the one-minute load average per core, which sees the last minute. Neither depends
// on how fast the machine is, only on how busy it is.
//
// TOONWIRE_TEST_PATIENCE=N multiplies every guard by N on top (for a machine slower still, or a
// debugger). Guards are only for hangs: a test that checks speed belongs in a benchmark.
import { availableParallelism, loadavg } from 'node:os';
import { cpuUsage } from 'node:process';

/** The workload: about 30 ms of CPU on the development machine, long enough to be measured. */
function workload(rounds = 400): number {
  let checksum = 0;
  for (let round = 0; round < rounds; round++) {
    const text = JSON.stringify({
      round,
      rows: Array.from({ length: 200 }, (_, i) => ({ i, s: `r${i}` })),
    });
    checksum += (JSON.parse(text) as { rows: unknown[] }).rows.length + text.length;
  }
  return checksum;
}

let measured: number | undefined;

/**
 * How many times slower than on an idle machine work runs in this process now (at least 1).
 * Measured once per process, on first use.
 *
 * @example
 * slowdown(); // 1 on an idle machine, about 2 beside two busy loops on 2 cores
 */
export function slowdown(): number {
  if (measured !== undefined) return measured;
  workload(40); // warm up: the first run includes compilation
  const ratios: number[] = [];
  for (let sample = 0; sample < 3; sample++) {
    const wallStart = performance.now();
    const cpuStart = cpuUsage();
    workload();
    const cpu = cpuUsage(cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    ratios.push((performance.now() - wallStart) / Math.max(cpuMs, 1));
  }
  // The largest of three samples: the guard must fit the busiest moments, not the average.
  const perCore = loadavg()[0]! / Math.max(1, availableParallelism());
  measured = Math.max(1, perCore, ...ratios);
  return measured;
}

/** The extra factor from TOONWIRE_TEST_PATIENCE (default 1). */
function patienceFromEnv(): number {
  const value = Number(process.env['TOONWIRE_TEST_PATIENCE'] ?? 1);
  return Number.isFinite(value) && value >= 1 ? value : 1;
}

/**
 * A hang guard in milliseconds: `baseMs` (already generous for an idle machine) times the
 * measured slowdown and TOONWIRE_TEST_PATIENCE.
 *
 * @example
 * const guard = hangGuardMs(60_000); // 60 s idle; 3 minutes where work runs 3x slower
 * setTimeout(() => child.kill(), guard);
 */
export function hangGuardMs(baseMs: number): number {
  return Math.round(baseMs * slowdown() * patienceFromEnv());
}

/**
 * Resolves with `promise`'s value, or rejects with an error naming `what` once a hang guard of
 * `baseMs` (scaled as in {@link hangGuardMs}) has passed. The timer does not keep the process
 * alive.
 *
 * @example
 * const response = await withinHangGuard(client.initialize(), 30_000, 'the initialize response');
 */
export function withinHangGuard<T>(promise: Promise<T>, baseMs: number, what: string): Promise<T> {
  const limit = hangGuardMs(baseMs);
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `no ${what} after ${limit} ms (a hang guard: ${baseMs} ms x slowdown ${slowdown().toFixed(1)}; raise TOONWIRE_TEST_PATIENCE on a slower machine)`,
          ),
        ),
      limit,
    );
    timer.unref();
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

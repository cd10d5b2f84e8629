// The timeouts of a session's pending requests, on one timer. A timer per request cost a
// `setTimeout` and a `clearTimeout` on every call (a tenth of the proxy's own work on a small
// tools/call while the process is young); one timer, armed for the earliest deadline and left
// alone when a later one is added, costs a clock read per call.

/** A request's clock, as {@link RequestClocks} keeps it inside the request's own record. */
export interface Clock {
  /** Its timeout in milliseconds; `0` or less: none, the clock never runs. */
  limitMs: number;
  /** How much of the timeout is left when the clock (re)starts. */
  remainingMs: number;
  /**
   * When it runs out (`performance.now()` time) while it runs; {@link STOPPED} when it does not
   * run, {@link EXPIRED} once it has run out.
   */
  deadline: number;
}

/** {@link Clock.deadline} of a clock that is not running (never started, or paused). */
export const STOPPED = 0;
/** {@link Clock.deadline} of a clock that ran out (and was reported). */
export const EXPIRED = -1;

/**
 * The clocks of a set of pending requests, on one timer: {@link start}, {@link pause} and
 * {@link started} work on the `Clock` fields of each request's own record, and `onExpired` is
 * called for each request whose clock runs out. A request that is no longer in `pending` has no
 * clock: nothing to clear when it is answered. Call {@link stop} when the requests' owner is
 * done: the timer may still be armed for a request answered long ago.
 *
 * @example
 * const pending = new Map([[1, { limitMs: 50, remainingMs: 50, deadline: STOPPED }]]);
 * const clocks = new RequestClocks(pending, (id) => console.log(`request ${id} timed out`));
 * clocks.start(pending.get(1)!); // logs "request 1 timed out" about 50 ms later, unless deleted
 */
export class RequestClocks<Id> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires, while it is armed. */
  private wakeAt = Number.POSITIVE_INFINITY;

  /** `now`: the clock the deadlines are on (`performance.now`, or a test's). */
  constructor(
    private readonly pending: ReadonlyMap<Id, Clock>,
    private readonly onExpired: (id: Id) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** (Re)starts `clock` with the time it has left; a clock without a limit does not run. */
  start(clock: Clock): void {
    if (clock.limitMs <= 0) return;
    clock.deadline = this.now() + clock.remainingMs;
    this.wakeBy(clock.deadline);
  }

  /** Stops `clock`, keeping what it has left. */
  pause(clock: Clock): void {
    if (clock.deadline === STOPPED) return;
    clock.remainingMs = clock.deadline === EXPIRED ? 0 : Math.max(0, clock.deadline - this.now());
    clock.deadline = STOPPED;
  }

  /** Whether `clock` was started (it runs, or it has run out) and not paused since. */
  started(clock: Clock): boolean {
    return clock.deadline !== STOPPED;
  }

  /** Stops the timer for good (the session is over). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
  }

  private wakeBy(at: number): void {
    if (this.timer !== undefined && this.wakeAt <= at) return;
    clearTimeout(this.timer);
    this.wakeAt = at;
    // A timer may fire a fraction of a millisecond early: `check` then arms it again.
    this.timer = setTimeout(this.check, Math.max(1, Math.ceil(at - this.now())));
  }

  private readonly check = (): void => {
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
    const now = this.now();
    const expired: Id[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [id, clock] of this.pending) {
      if (clock.deadline <= 0) continue;
      if (clock.deadline <= now) {
        clock.deadline = EXPIRED;
        expired.push(id);
      } else if (clock.deadline < next) next = clock.deadline;
    }
    if (next !== Number.POSITIVE_INFINITY) this.wakeBy(next);
    for (const id of expired) if (this.pending.has(id)) this.onExpired(id);
  };
}

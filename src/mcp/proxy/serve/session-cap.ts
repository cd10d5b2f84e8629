// `--max-sessions`: the one count of the sessions (for a command, the upstream processes) of the
// whole `--listen` proxy, both routes together (handshake sessions of `listen`, the shared
// sessions of the 2026-07-28 route in `listen-modern`), and the one rule that makes room for a
// new one fairly between callers (roomFor). Each route keeps a Seat per session it starts; the
// cap weighs the seats and ends the one the rule picks. Counted apart, the two routes held twice
// the bound, and a caller flooding one route ended the other callers' sessions there.

import type { ProxySession } from '../session/session.js';
import type { ProxyMetrics } from '../telemetry/metrics.js';
import type { ProxyStats } from '../telemetry/stats.js';

/** How long a client refused for want of a session is told to wait (`Retry-After`, seconds). */
export const RETRY_AFTER_SECONDS = 5;

/** What making room for one more session came to. */
export type Room<S = ProxySession> =
  | { kind: 'free' }
  /** End `session` (`caller`'s, idle the longest) to make room. */
  | { kind: 'end'; session: S; caller: string; share: number; callers: number }
  /** Every session that could be ended is busy: 503. */
  | { kind: 'busy' }
  /** The caller holds its share, all of them busy: 429 (another caller's are not ended). */
  | { kind: 'over-share'; held: number; callers: number };

/** An open session, as {@link roomFor} weighs it. */
export interface OpenSession<S = ProxySession> {
  session: S;
  caller: string;
  /** How long it has had no open request, or -1 while it has one. */
  idleMs: number;
  /** Whether a call of it is in flight: such a session is never ended. */
  working: boolean;
}

/**
 * Which session to end so that `caller` may open one more when `open` fills `maxSessions`. Each
 * caller with sessions (and `caller`) has a share of `floor(maxSessions / callers)`, at least 1.
 * A caller at or over its share makes room only among its own sessions (the one idle the
 * longest), else is refused (429); a caller under it ends a session of the callers over their
 * share: the one idle the longest, else the one whose client only listens (an open GET stream, no
 * call in flight). A session with a call in flight is never ended. One caller (no
 * authentication: every caller is `anonymous`) has the whole proxy, as before: its session idle
 * the longest ends, else 503.
 *
 * @example
 * roomFor([{ session: a1, caller: 'alice', idleMs: 900, working: false }, { session: b1, caller: 'bob', idleMs: 5000, working: false }], 'alice', 2);
 * // { kind: 'end', session: a1, caller: 'alice', share: 1, callers: 2 }
 */
export function roomFor<S>(
  open: readonly OpenSession<S>[],
  caller: string,
  maxSessions: number,
): Room<S> {
  if (open.length < maxSessions) return { kind: 'free' };
  const held = new Map<string, number>([[caller, 0]]);
  for (const entry of open) held.set(entry.caller, (held.get(entry.caller) ?? 0) + 1);
  const callers = held.size;
  const share = Math.max(1, Math.floor(maxSessions / callers));
  const mine = held.get(caller)!;
  const atShare = mine >= share;
  const candidates = open.filter((entry) =>
    atShare ? entry.caller === caller : held.get(entry.caller)! > share,
  );
  const idle = candidates.filter((entry) => entry.idleMs >= 0);
  // Another caller's client that only listens loses its stream; the caller's own never does.
  const pool = idle.length > 0 || atShare ? idle : candidates.filter((entry) => !entry.working);
  // Idle the longest first; among listening ones, the first opened (`open` is in that order).
  const chosen = pool.reduce<OpenSession<S> | undefined>(
    (oldest, entry) => (oldest === undefined || entry.idleMs > oldest.idleMs ? entry : oldest),
    undefined,
  );
  if (chosen !== undefined)
    return { kind: 'end', session: chosen.session, caller: chosen.caller, share, callers };
  return atShare && callers > 1 ? { kind: 'over-share', held: mine, callers } : { kind: 'busy' };
}

/** How a session weighs now: see {@link OpenSession}. */
export interface SessionWeight {
  idleMs: number;
  working: boolean;
}

/** One session's place under the cap, from before its session exists until it has ended. */
export interface Seat {
  /** Whose session it is. */
  readonly caller: string;
  /**
   * Puts the session, once made, in the seat: `weigh` says how it weighs now, `ending` cleans
   * the route up when the cap (or {@link end}) ends it. Until then the seat counts as busy.
   */
  fill(session: ProxySession, weigh: () => SessionWeight, ending?: () => void): void;
  /** Ends the session (its upstream stopped), logged as `why` and counted as reaped; once. */
  end(why: string): void;
  /** Gives the seat back: the session has ended, or never started. */
  release(): void;
}

/** What {@link SessionCap.admit} came to: a seat, or why there is none. */
export type Admission =
  | { kind: 'seated'; seat: Seat }
  | { kind: 'busy' }
  | { kind: 'over-share'; held: number; callers: number };

/** Options of a {@link SessionCap}. */
export interface SessionCapOptions {
  /** The most sessions at once, both routes together. */
  maxSessions: number;
  /** Where messages about ended sessions go. */
  log: (message: string) => void;
  /** Counts sessions ended and refused. */
  stats?: ProxyStats;
  /** Counts them too. */
  metrics?: ProxyMetrics;
}

interface SeatState {
  caller: string;
  session?: ProxySession;
  weigh?: () => SessionWeight;
  ending?: () => void;
  released: boolean;
}

/**
 * The sessions of a `--listen` proxy, counted against `--max-sessions` and made room for by
 * {@link roomFor}, whichever route opens them.
 *
 * @example
 * const cap = new SessionCap({ maxSessions: 32, log: console.error });
 * const admission = cap.admit('alice');
 * if (admission.kind === 'seated') {
 *   const session = await createSession(transport);
 *   admission.seat.fill(session, () => ({ idleMs: -1, working: true }));
 *   void session.ended.then(() => admission.seat.release());
 * }
 */
export class SessionCap {
  /** In the order they were taken: roomFor breaks ties by it. */
  private readonly seats = new Set<SeatState>();

  constructor(private readonly options: SessionCapOptions) {}

  /** How many seats are taken (sessions open or starting). */
  get size(): number {
    return this.seats.size;
  }

  /** The most sessions at once. */
  get maxSessions(): number {
    return this.options.maxSessions;
  }

  /**
   * A seat for one more session of `caller`, made when the cap is full by ending the session
   * {@link roomFor} picks; or the refusal, counted (the caller answers it: {@link refusalOf}).
   */
  admit(caller: string): Admission {
    const { maxSessions } = this.options;
    if (this.seats.size >= maxSessions) {
      const open = [...this.seats].map((state) => {
        // A seat whose session is still starting is busy: it cannot be ended yet.
        const weight = state.weigh?.() ?? { idleMs: -1, working: true };
        return { session: state, caller: state.caller, ...weight };
      });
      const room = roomFor(open, caller, maxSessions);
      if (room.kind === 'busy' || room.kind === 'over-share') {
        this.options.stats?.recordSession('refused');
        this.options.metrics?.sessionEnded('busy');
        return room;
      }
      if (room.kind === 'end')
        this.end(
          room.session,
          room.caller === caller && room.callers === 1
            ? `ended the session idle the longest, to stay within ${maxSessions} sessions`
            : `ended a session of ${room.caller} (idle the longest, or only listening), to keep ${room.caller} within its share of ${room.share} of the ${maxSessions} sessions`,
        );
    }
    const state: SeatState = { caller, released: false };
    this.seats.add(state);
    return {
      kind: 'seated',
      seat: {
        caller,
        fill: (session, weigh, ending) => {
          state.session = session;
          state.weigh = weigh;
          state.ending = ending;
        },
        end: (why) => this.end(state, why),
        release: () => {
          state.released = true;
          this.seats.delete(state);
        },
      },
    };
  }

  /** Ends the session in `state` (once), its seat given back at once. */
  private end(state: SeatState, why: string): void {
    if (state.released || state.session === undefined) return;
    state.released = true;
    this.seats.delete(state);
    state.ending?.();
    this.options.stats?.recordSession('reaped');
    this.options.metrics?.sessionEnded('idle');
    this.options.log(`toonwire proxy: ${why}; its upstream is stopped`);
    void state.session.close();
  }
}

/**
 * Why a session was ended for idleness, as both routes say it (on stderr, through
 * {@link Seat.end}).
 *
 * @example
 * idleEnd(121_400); // 'ended a session idle for 121 s (--idle-timeout)'
 */
export function idleEnd(idleMs: number): string {
  return `ended a session idle for ${Math.round(idleMs / 1000)} s (--idle-timeout)`;
}

/**
 * The HTTP status and message of a refused session: 429 for a caller at its share (its other
 * callers' sessions go on), 503 when every session is busy; both with `Retry-After`.
 *
 * @example
 * refusalOf({ kind: 'busy' }, 'anonymous', 32);
 * // { status: 503, message: 'Too many sessions: all 32 are busy; …', headers: { 'retry-after': '5' } }
 */
export function refusalOf(
  refused: Exclude<Admission, { kind: 'seated' }>,
  caller: string,
  maxSessions: number,
): { status: number; message: string; headers: Record<string, string> } {
  const headers = { 'retry-after': String(RETRY_AFTER_SECONDS) };
  if (refused.kind === 'over-share')
    return {
      status: 429,
      message: `Too many sessions for ${caller}: all ${refused.held} of its sessions (its share of the ${maxSessions} this proxy holds for ${refused.callers} callers) are busy; end one (HTTP DELETE) or retry in ${RETRY_AFTER_SECONDS} s`,
      headers,
    };
  return {
    status: 503,
    message: `Too many sessions: all ${maxSessions} are busy; retry later, or start the proxy with a larger --max-sessions`,
    headers,
  };
}

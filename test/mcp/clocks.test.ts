// The request clocks of a proxy session: one timer for every pending request, on a clock the
// test moves (node's mock timers for the timer, a counter for `now`), so nothing waits for time.

import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { type Clock, EXPIRED, RequestClocks, STOPPED } from '../../src/mcp/proxy/session/clocks.js';

/** Clocks over `pending`, with mock timers and a `now` that moves with them. */
function setUp(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let now = 1000;
  const pending = new Map<string, Clock>();
  const expired: string[] = [];
  const clocks = new RequestClocks(
    pending,
    (id) => expired.push(id),
    () => now,
  );
  const add = (id: string, limitMs: number) => {
    const clock = { limitMs, remainingMs: limitMs, deadline: STOPPED };
    pending.set(id, clock);
    return clock;
  };
  const advance = (ms: number) => {
    now += ms;
    t.mock.timers.tick(ms);
  };
  return { pending, expired, clocks, add, advance };
}

describe('RequestClocks', () => {
  it('reports a request whose clock runs out, and only then', (t) => {
    const { expired, clocks, add, advance } = setUp(t);
    clocks.start(add('a', 100));
    advance(99);
    assert.deepEqual(expired, []);
    advance(1);
    assert.deepEqual(expired, ['a']);
  });

  it('reports each request at its own deadline on one timer, earliest first', (t) => {
    const { expired, clocks, add, advance } = setUp(t);
    clocks.start(add('late', 300));
    clocks.start(add('early', 100));
    clocks.start(add('middle', 200));
    advance(100);
    assert.deepEqual(expired, ['early']);
    advance(100);
    assert.deepEqual(expired, ['early', 'middle']);
    advance(100);
    assert.deepEqual(expired, ['early', 'middle', 'late']);
  });

  it('forgets a request that is no longer pending: no clearing needed when it is answered', (t) => {
    const { pending, expired, clocks, add, advance } = setUp(t);
    clocks.start(add('answered', 100));
    pending.delete('answered');
    advance(1000);
    assert.deepEqual(expired, []);
  });

  it('keeps what a paused clock has left, and runs it out after a restart', (t) => {
    const { expired, clocks, add, advance } = setUp(t);
    const clock = add('a', 100);
    clocks.start(clock);
    advance(60);
    clocks.pause(clock);
    assert.equal(clock.remainingMs, 40);
    assert.equal(clocks.started(clock), false);
    advance(1000);
    assert.deepEqual(expired, []);
    clocks.start(clock);
    advance(39);
    assert.deepEqual(expired, []);
    advance(1);
    assert.deepEqual(expired, ['a']);
  });

  it('restarts a running clock with the time it is given (progress resets a timeout)', (t) => {
    const { expired, clocks, add, advance } = setUp(t);
    const clock = add('a', 100);
    clocks.start(clock);
    advance(90);
    clock.remainingMs = clock.limitMs;
    clocks.start(clock);
    advance(90);
    assert.deepEqual(expired, []);
    advance(10);
    assert.deepEqual(expired, ['a']);
  });

  it('marks a clock that ran out as started but expired, with nothing left once paused', (t) => {
    const { clocks, add, advance } = setUp(t);
    const clock = add('a', 100);
    clocks.start(clock);
    advance(100);
    assert.equal(clock.deadline, EXPIRED);
    assert.equal(clocks.started(clock), true);
    clocks.pause(clock);
    assert.equal(clock.remainingMs, 0);
  });

  it('never runs a clock without a limit, and stops for good', (t) => {
    const { expired, clocks, add, advance } = setUp(t);
    const unlimited = add('unlimited', 0);
    clocks.start(unlimited);
    assert.equal(clocks.started(unlimited), false);
    clocks.start(add('a', 100));
    clocks.stop();
    advance(1000);
    assert.deepEqual(expired, []);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { retryDelay, transition, type BackoffPolicy, type LinkEvent, type LinkState, type Transition } from '../../src/remote/state.ts';

const policy: BackoffPolicy = { firstRetryMs: 1000, maxRetryMs: 8000, stableMs: 30_000 };
const NOW = 100_000;

interface Case {
  name: string;
  from: LinkState;
  event: LinkEvent;
  want: Transition;
}

const connecting = (failures: number, lastFailure: string | null = null): LinkState => ({ state: 'connecting', since: NOW - 10, failures, lastFailure });
const connected = (since: number, failures = 0): LinkState => ({ state: 'connected', since, failures, remotePort: 41000 });
const failed = (failures: number, reason = 'drop'): LinkState => ({ state: 'failed', since: NOW - 10, failures, reason, retryAt: NOW });

const cases: Case[] = [
  { name: 'a started remote connects at once', from: { state: 'stopped' }, event: { type: 'start' }, want: { next: { state: 'connecting', since: NOW, failures: 0, lastFailure: null }, effects: [{ type: 'connect' }] } },
  { name: 'starting twice opens no second tunnel', from: connecting(0), event: { type: 'start' }, want: { next: connecting(0), effects: [] } },
  { name: 'a tunnel up is connected, with its port', from: connecting(2), event: { type: 'up', remotePort: 41000 }, want: { next: { state: 'connected', since: NOW, failures: 2, remotePort: 41000 }, effects: [] } },
  {
    name: 'a first failure waits the first delay, saying why',
    from: connecting(0),
    event: { type: 'down', reason: 'host key unknown' },
    want: { next: { state: 'failed', since: NOW, failures: 1, reason: 'host key unknown', retryAt: NOW + 1000 }, effects: [{ type: 'wait', ms: 1000 }] },
  },
  {
    name: 'failures in a row double the wait',
    from: connecting(2),
    event: { type: 'down', reason: 'refused' },
    want: { next: { state: 'failed', since: NOW, failures: 3, reason: 'refused', retryAt: NOW + 4000 }, effects: [{ type: 'wait', ms: 4000 }] },
  },
  {
    name: 'the wait stops growing at its cap',
    from: connecting(9),
    event: { type: 'down', reason: 'refused' },
    want: { next: { state: 'failed', since: NOW, failures: 10, reason: 'refused', retryAt: NOW + 8000 }, effects: [{ type: 'wait', ms: 8000 }] },
  },
  {
    name: 'a drop after a stable connection is retried after the first delay',
    from: connected(NOW - 60_000, 5),
    event: { type: 'down', reason: 'server stopped answering' },
    want: { next: { state: 'failed', since: NOW, failures: 1, reason: 'server stopped answering', retryAt: NOW + 1000 }, effects: [{ type: 'wait', ms: 1000 }] },
  },
  {
    name: 'a connection that drops at once counts as one more failure',
    from: connected(NOW - 2000, 3),
    event: { type: 'down', reason: 'closed' },
    want: { next: { state: 'failed', since: NOW, failures: 4, reason: 'closed', retryAt: NOW + 8000 }, effects: [{ type: 'wait', ms: 8000 }] },
  },
  { name: 'after the wait it connects again, keeping the reason', from: failed(2, 'closed'), event: { type: 'retry' }, want: { next: { state: 'connecting', since: NOW, failures: 2, lastFailure: 'closed' }, effects: [{ type: 'connect' }] } },
  { name: 'a late retry of a connected remote does nothing', from: connected(NOW), event: { type: 'retry' }, want: { next: connected(NOW), effects: [] } },
  { name: 'a stale "down" while waiting does nothing', from: failed(1), event: { type: 'down', reason: 'x' }, want: { next: failed(1), effects: [] } },
  { name: 'stopping a connected remote ends its tunnel', from: connected(NOW), event: { type: 'stop' }, want: { next: { state: 'stopped' }, effects: [{ type: 'disconnect' }] } },
  { name: 'stopping a waiting remote ends its wait', from: failed(1), event: { type: 'stop' }, want: { next: { state: 'stopped' }, effects: [{ type: 'disconnect' }] } },
  { name: 'a stopped remote ignores a late "up"', from: { state: 'stopped' }, event: { type: 'up', remotePort: 1 }, want: { next: { state: 'stopped' }, effects: [] } },
];

describe('a remote connection reconnects with backoff', () => {
  for (const c of cases) test(c.name, () => assert.deepEqual(transition(c.from, c.event, NOW, policy), c.want));

  test('the delays double from the first up to the cap', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => retryDelay(n, policy)), [1000, 2000, 4000, 8000, 8000, 8000]);
  });
});

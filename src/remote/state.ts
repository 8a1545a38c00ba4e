// One remote's connection as a state machine (STYLE: decisions are pure functions of state).
// Each transition returns the effects the manager carries out (start a tunnel, wait, stop one),
// so the reconnect rules are table-tested without ssh or timers.

export interface BackoffPolicy {
  /** The wait after the first failure; it doubles with each further one… */
  firstRetryMs: number;
  /** …up to this. */
  maxRetryMs: number;
  /** A connection that stayed up this long starts the count again: its drop is retried after the first wait. */
  stableMs: number;
}

export const BACKOFF: BackoffPolicy = { firstRetryMs: 1000, maxRetryMs: 60_000, stableMs: 30_000 };

export type LinkState =
  /** A tunnel is being opened; `lastFailure` is why the one before ended, while retrying. */
  | { state: 'connecting'; since: number; failures: number; lastFailure: string | null }
  | { state: 'connected'; since: number; failures: number; remotePort: number }
  /** Down: `reason` says why (and what to fix); `retryAt` when the next attempt starts. */
  | { state: 'failed'; since: number; failures: number; reason: string; retryAt: number }
  | { state: 'stopped' };

export type LinkEvent =
  | { type: 'start' }
  /** The tunnel is up and its remote lockfiles written. */
  | { type: 'up'; remotePort: number }
  /** The attempt failed, or the connection dropped. */
  | { type: 'down'; reason: string }
  /** The wait after a failure is over. */
  | { type: 'retry' }
  | { type: 'stop' };

/** `disconnect`: stop the tunnel (its remote lockfiles go with it) and any wait. */
export type LinkEffect = { type: 'connect' } | { type: 'wait'; ms: number } | { type: 'disconnect' };

export interface Transition {
  next: LinkState;
  effects: LinkEffect[];
}

/** The wait before the attempt after `failures` failures in a row. */
export function retryDelay(failures: number, policy: BackoffPolicy): number {
  return Math.min(policy.firstRetryMs * 2 ** Math.max(0, failures - 1), policy.maxRetryMs);
}

export function initialState(): LinkState {
  return { state: 'stopped' };
}

export function transition(current: LinkState, event: LinkEvent, now: number, policy: BackoffPolicy = BACKOFF): Transition {
  const stay: Transition = { next: current, effects: [] };
  switch (event.type) {
    case 'start':
      if (current.state !== 'stopped') return stay;
      return { next: { state: 'connecting', since: now, failures: 0, lastFailure: null }, effects: [{ type: 'connect' }] };
    case 'up':
      if (current.state !== 'connecting') return stay;
      return { next: { state: 'connected', since: now, failures: current.failures, remotePort: event.remotePort }, effects: [] };
    case 'down': {
      if (current.state !== 'connecting' && current.state !== 'connected') return stay;
      const stable = current.state === 'connected' && now - current.since >= policy.stableMs;
      const failures = stable ? 1 : current.failures + 1;
      const wait = retryDelay(failures, policy);
      return { next: { state: 'failed', since: now, failures, reason: event.reason, retryAt: now + wait }, effects: [{ type: 'wait', ms: wait }] };
    }
    case 'retry':
      if (current.state !== 'failed') return stay;
      return { next: { state: 'connecting', since: now, failures: current.failures, lastFailure: current.reason }, effects: [{ type: 'connect' }] };
    case 'stop':
      if (current.state === 'stopped') return stay;
      // Also from `failed`: its pending wait is what stops.
      return { next: { state: 'stopped' }, effects: [{ type: 'disconnect' }] };
  }
}

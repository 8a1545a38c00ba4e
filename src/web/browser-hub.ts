// The page's HubApi in a browser: signs in with the link's one-time secret, keeps the sign-in
// for every tab of this origin in the browser profile (its secret as a key no script can read
// back; no other port sees any of it), renews it while the page is open by proving it rather
// than sending it, and reconnects by itself with backoff when the daemon goes away, as long as
// the sign-in lasts. No node imports, no DOM types: the environment comes in as BrowserEnv.
import { createRemoteHub, type RemoteHub } from '../api/remote.ts';
import { HubError, type HubApi, type HubEvent, type HubMethod, type ParamsOf, type ResultOf } from '../api/types.ts';
import {
  API_PATH,
  BROWSER_PROTOCOL,
  SESSION_PATH,
  SIGNED_OUT_CLOSE_CODE,
  STALE_CHALLENGE_STATUS,
  TICKET_PROTOCOL_PREFIX,
  isChallengeAnswer,
  isSessionAnswer,
  signInSecretFrom,
  type SessionAnswer,
  type SessionRequest,
} from './browser-protocol.ts';
import { browserMessageSocket, type BrowserWebSocket } from './browser-socket.ts';
import { keepCredential, prove, type KeptSignIn } from './session-proof.ts';

export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'connected' }
  /**
   * The daemon went away (or never answered): `why` is what ended the connection (it stays
   * the same while attempts fail, so a page can announce it once), `lastError` the latest
   * attempt's failure; the next attempt is due in `retryInMs`.
   */
  | { kind: 'reconnecting'; why: string; lastError: string | null; attempt: number; retryInMs: number }
  /** No sign-in, or it ended: only a new link helps. */
  | { kind: 'signed-out'; why: string };

export interface HttpAnswer {
  status: number;
  json(): Promise<unknown>;
}

/** What the page gives the hub: its own origin, address bar, storage, fetch and sockets. */
export interface BrowserEnv {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The location's hash when the page loaded. */
  hash: string;
  /** Takes the sign-in secret out of the address bar (and so out of history). */
  clearHash(): void;
  signIns: SignInStore;
  post(url: string, body: string): Promise<HttpAnswer>;
  openSocket(url: string, protocols: string[]): BrowserWebSocket;
}

/** Where the sign-in is kept for every tab of this origin in the browser profile (IndexedDB in a browser). */
export interface SignInStore {
  load(): Promise<KeptSignIn | null>;
  save(signIn: KeptSignIn): Promise<void>;
  /** Forgets the sign-in with this claim; one another tab stored since stays. */
  forget(claim: string): Promise<void>;
  /** Calls `cb` when another tab stored or forgot one. */
  onChange(cb: () => void): void;
}

export interface BrowserHub extends HubApi {
  readonly state: ConnectionState;
  /** Calls `cb` now with the current state, then on every change. */
  onState(cb: (state: ConnectionState) => void): () => void;
  /** Skips the wait before the next reconnect attempt. */
  retryNow(): void;
  close(): void;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;
const RENEW_RETRY_MS = 30_000;
const NO_SIGN_IN = 'this page has no sign-in';
const LINK_USED = 'this sign-in link has expired or was used already';
const SIGN_IN_ENDED = 'your sign-in has ended';

/** The daemon could not be reached: worth another try, unlike a refusal. */
class Unreachable extends Error {}

export function connectBrowserHub(env: BrowserEnv): BrowserHub {
  const listeners = new Set<(event: HubEvent) => void>();
  const stateListeners = new Set<(state: ConnectionState) => void>();
  let state: ConnectionState = { kind: 'connecting' };
  let remote: RemoteHub | null = null;
  let socket: BrowserWebSocket | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let renewTimer: ReturnType<typeof setTimeout> | null = null;
  let retryWaitMs = FIRST_RETRY_MS;
  let attempt = 0;
  let closed = false;
  /** The sign-in this tab last used or stored (also what it falls back on if the store fails). */
  let mine: KeptSignIn | null = null;
  /** The latest write of `mine` to the store every tab shares, done or under way. */
  let stored: Promise<void> = Promise.resolve();
  /** A secret from the link not yet traded (kept until the daemon answers). */
  let secret = signInSecretFrom(env.hash);
  if (secret !== null) env.clearHash();

  const setState = (next: ConnectionState): void => {
    state = next;
    for (const cb of [...stateListeners]) cb(next);
  };

  /** `voided`: the sign-in found to be over, forgotten unless another tab has stored a newer one meanwhile. */
  const signedOut = (why: string, voided?: KeptSignIn | null): void => {
    if (voided != null) {
      if (mine?.claim === voided.claim) mine = null;
      void stored.then(() => env.signIns.forget(voided.claim)).catch(() => {});
    }
    stopTimers();
    const current = socket;
    remote = null;
    socket = null;
    current?.close(1000);
    setState({ kind: 'signed-out', why });
  };

  const stopTimers = (): void => {
    if (retryTimer !== null) clearTimeout(retryTimer);
    if (renewTimer !== null) clearTimeout(renewTimer);
    retryTimer = renewTimer = null;
  };

  /** POST SESSION_PATH: the status and JSON body; Unreachable when the daemon is away. */
  const post = async (request: SessionRequest): Promise<{ status: number; body: unknown }> => {
    let answer: HttpAnswer;
    try {
      answer = await env.post(`${env.origin}${SESSION_PATH}`, JSON.stringify(request));
    } catch (err) {
      throw new Unreachable(`Patchbay is not answering (${(err as Error).message})`);
    }
    return { status: answer.status, body: await answer.json().catch(() => null) };
  };

  /** The sign-in every tab shares, or this tab's own when the store fails. */
  const load = async (): Promise<KeptSignIn | null> => {
    await stored;
    return (await env.signIns.load().catch(() => null)) ?? mine;
  };

  /** Keeps a new credential (for every tab) and schedules its renewal; its ticket opens the socket. */
  const accept = async (status: number, body: unknown): Promise<SessionAnswer | null> => {
    if (status === 401) return null;
    if (status !== 200) throw new Unreachable(`Patchbay answered ${status}`);
    if (!isSessionAnswer(body)) throw new Unreachable('Patchbay answered without a credential');
    const kept = await keepCredential(body.credential);
    if (kept === null) throw new Unreachable('Patchbay answered with a malformed credential');
    mine = kept;
    // Stored while the socket opens, not before: the ticket in hand does not need it. Reads and
    // removals of the store wait for it (`stored`), so they never see the sign-in it replaces.
    stored = env.signIns.save(kept).catch(() => {});
    if (renewTimer !== null) clearTimeout(renewTimer);
    renewTimer = setTimeout(() => void renew(), body.renewInMs);
    return body;
  };

  /**
   * Renews a credential without sending it: whoever answers at this address gets only a proof
   * for its own challenge, which is worth nothing anywhere else. Null: the sign-in has ended.
   * `asked`: the challenge, if it was asked for already.
   */
  const renewCredential = async (signIn: KeptSignIn, asked = post({ challenge: true })): Promise<SessionAnswer | null> => {
    const challenge = await asked;
    if (challenge.status !== 200 || !isChallengeAnswer(challenge.body)) throw new Unreachable(`Patchbay answered ${challenge.status} to a challenge`);
    const { nonce } = challenge.body;
    const answer = await post({ renew: signIn.claim, nonce, proof: await prove(signIn.key, nonce) });
    if (answer.status === STALE_CHALLENGE_STATUS) throw new Unreachable('the renewal took too long');
    return accept(answer.status, answer.body);
  };

  /** While connected: keeps the sign-in from going idle. A daemon away is the socket's business. */
  const renew = async (): Promise<void> => {
    renewTimer = null;
    // The freshest sign-in of any tab: each one's renewals serve them all.
    const signIn = await load();
    if (closed || signIn === null) return;
    try {
      if ((await renewCredential(signIn)) === null) signedOut(SIGN_IN_ENDED, signIn);
    } catch {
      // Unreachable: if the daemon is gone the socket notices and reconnects, renewing first;
      // if it only stumbled, try again soon, well within the idle time.
      if (!closed && remote !== null) renewTimer = setTimeout(() => void renew(), RENEW_RETRY_MS);
    }
  };

  /** A ticket for the socket: from the link's secret, else by renewing the stored credential. Null: signed out (already said why). */
  const ticket = async (): Promise<string | null> => {
    if (secret !== null) {
      const traded = await post({ signin: secret }).then(({ status, body }) => accept(status, body));
      secret = null;
      if (traded === null) signedOut(LINK_USED);
      return traded?.ticket ?? null;
    }
    // Asked for while the sign-in is read: a new tab's first IndexedDB read takes ~100 ms.
    const challenge = post({ challenge: true });
    challenge.catch(() => {}); // seen where it is awaited, or moot without a sign-in
    const stored = await load();
    if (stored === null) {
      signedOut(NO_SIGN_IN);
      return null;
    }
    const renewed = await renewCredential(stored, challenge);
    if (renewed === null) signedOut(SIGN_IN_ENDED, stored);
    return renewed?.ticket ?? null;
  };

  const open = (ticketText: string): Promise<RemoteHub> =>
    new Promise((resolve, reject) => {
      const ws = env.openSocket(`${env.origin.replace(/^http/, 'ws')}${API_PATH}`, [BROWSER_PROTOCOL, `${TICKET_PROTOCOL_PREFIX}${ticketText}`]);
      let opened = false;
      ws.addEventListener('open', () => {
        opened = true;
        resolve(createRemoteHub(browserMessageSocket(ws)));
      });
      ws.addEventListener('close', ({ code, reason }) => {
        // Browsers hide why a handshake was refused; renewing first makes that rare.
        if (!opened) reject(new Unreachable('Patchbay did not accept the connection'));
        else if (ws === socket) lost(code, reason);
      });
      socket = ws;
    });

  const lost = (code: number, reason: string): void => {
    remote = null;
    socket = null;
    if (renewTimer !== null) clearTimeout(renewTimer);
    renewTimer = null;
    if (closed) return;
    if (code === SIGNED_OUT_CLOSE_CODE) return signedOut(reason === 'signed out' ? 'every browser was signed out' : SIGN_IN_ENDED, mine);
    const why = reason || (code === 1006 ? 'the connection dropped' : `closed with code ${code}`);
    retryWaitMs = FIRST_RETRY_MS;
    scheduleRetry(why);
  };

  /** `failure`: what ended the connection, or why the latest attempt failed. */
  const scheduleRetry = (failure: string): void => {
    attempt += 1;
    const wait = retryWaitMs;
    retryWaitMs = Math.min(retryWaitMs * 2, MAX_RETRY_MS);
    const previous = state.kind === 'reconnecting' ? state : null;
    setState({ kind: 'reconnecting', why: previous?.why ?? failure, lastError: previous === null ? null : failure, attempt, retryInMs: wait });
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, wait);
  };

  const connect = async (): Promise<void> => {
    try {
      const fresh = await ticket();
      if (fresh === null || closed) return;
      const next = await open(fresh);
      if (closed) return next.close();
      remote = next;
      next.subscribe((event) => {
        for (const listener of [...listeners]) listener(event);
      });
      attempt = 0;
      retryWaitMs = FIRST_RETRY_MS;
      setState({ kind: 'connected' });
    } catch (err) {
      if (closed || state.kind === 'signed-out') return;
      scheduleRetry(err instanceof Unreachable ? err.message : `could not connect (${(err as Error).message})`);
    }
  };

  // Another tab signed in (a new link) while this one was signed out: take its sign-in.
  env.signIns.onChange(() => {
    if (closed || state.kind !== 'signed-out') return;
    void env.signIns.load().then((signIn) => {
      if (signIn === null || closed || state.kind !== 'signed-out') return;
      setState({ kind: 'connecting' });
      void connect();
    }, () => {});
  });

  void connect();

  return {
    get state() {
      return state;
    },
    call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
      if (remote === null) {
        const why = state.kind === 'signed-out' ? `signed out: ${state.why}` : 'not connected to Patchbay';
        return Promise.reject(new HubError(`${method}: ${why}`, 'unavailable'));
      }
      return remote.call(method, params);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    onState(cb) {
      stateListeners.add(cb);
      cb(state);
      return () => {
        stateListeners.delete(cb);
      };
    },
    retryNow() {
      if (retryTimer === null) return;
      clearTimeout(retryTimer);
      retryTimer = null;
      void connect();
    },
    close() {
      if (closed) return;
      closed = true;
      stopTimers();
      remote?.close();
      remote = null;
      socket = null;
    },
  };
}

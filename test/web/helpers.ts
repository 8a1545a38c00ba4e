// Small clients for poking the control server the way the CLI and a browser would.
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { BROWSER_PROTOCOL, TICKET_PROTOCOL_PREFIX } from '../../src/web/browser-protocol.ts';
import { keepCredential, proveSecret, splitCredential, type KeptSignIn } from '../../src/web/session-proof.ts';
import { connectBrowserHub, type BrowserHub, type ConnectionState, type SignInStore } from '../../src/web/browser-hub.ts';
import type { BrowserWebSocket } from '../../src/web/browser-socket.ts';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function httpRequest(
  port: number,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** POST /session as the page does: JSON, from `origin`. */
export function sessionRequest(port: number, origin: string | undefined, body: unknown): Promise<HttpAnswer> {
  return httpRequest(port, '/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) },
    body: JSON.stringify(body),
  });
}

/**
 * Renews `credential` as the page does: a challenge, then the proof of the credential's
 * secret for it (never the credential itself). The renewal's answer.
 */
export async function renewRequest(port: number, origin: string | undefined, credential: string): Promise<HttpAnswer> {
  const challenge = await sessionRequest(port, origin, { challenge: true });
  if (challenge.status !== 200) return challenge;
  const { nonce } = JSON.parse(challenge.body) as { nonce: string };
  const parts = splitCredential(credential);
  if (parts === null) throw new Error(`not a credential: ${credential}`);
  return sessionRequest(port, origin, { renew: parts.claim, nonce, proof: await proveSecret(parts.secret, nonce) });
}

/** The subprotocols a signed-in page offers: the plain one and its one-time ticket. */
export function browserProtocols(ticket: string): string[] {
  return [BROWSER_PROTOCOL, `${TICKET_PROTOCOL_PREFIX}${ticket}`];
}

/** Opens a WebSocket, or reports the HTTP status that refused the upgrade. */
export function openSocket(
  url: string,
  headers: Record<string, string> = {},
  protocols: string[] = [],
): Promise<{ ok: true; ws: WebSocket } | { ok: false; status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers, perMessageDeflate: false });
    ws.once('open', () => resolve({ ok: true, ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ ok: false, status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.on('error', (err) => reject(err)); // after a refusal, terminate() reports here too: too late to matter
  });
}

/**
 * A browser profile's kept sign-in for one origin, shared by its tabs: a change made by one tab
 * is announced to the others, as the browser's `storage` event does.
 */
export class ProfileSignIns {
  current: KeptSignIn | null = null;
  /** While set, reads wait for it (a new tab's first IndexedDB read is slow). */
  held: Promise<void> | null = null;
  private readonly tabs = new Set<() => void>();

  /** Keeps a whole credential, as a sign-in in another tab would have. */
  async keep(credential: string): Promise<void> {
    this.current = await keepCredential(credential);
  }

  /** The store as one tab sees it. */
  tab(): SignInStore {
    let own: (() => void) | null = null;
    const announce = () => {
      for (const listener of this.tabs) if (listener !== own) listener();
    };
    return {
      load: async () => {
        await this.held;
        return this.current;
      },
      save: async (signIn) => {
        this.current = signIn;
        announce();
      },
      forget: async (claim) => {
        if (this.current?.claim !== claim) return;
        this.current = null;
        announce();
      },
      onChange: (cb) => {
        own = cb;
        this.tabs.add(cb);
      },
    };
  }
}

/** The page's hub (src/web/browser-hub.ts) outside a browser: node's ws as its WebSocket, our Origin on every request. */
export function nodePage(origin: string, options: { link?: string; profile?: ProfileSignIns } = {}) {
  const states: ConnectionState[] = [];
  let cleared = 0;
  const posts: unknown[] = [];
  const profile = options.profile ?? new ProfileSignIns();
  const hub: BrowserHub = connectBrowserHub({
    origin,
    hash: options.link === undefined ? '' : new URL(options.link).hash,
    clearHash: () => void (cleared += 1),
    signIns: profile.tab(),
    // The page's fetch, with the Origin a browser adds by itself.
    post: async (url, body) => {
      posts.push(JSON.parse(body));
      const answer = await httpRequest(Number(new URL(url).port), new URL(url).pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body,
      });
      return { status: answer.status, json: async () => JSON.parse(answer.body) as unknown };
    },
    openSocket: (url, protocols) => new WebSocket(url, protocols, { origin }) as unknown as BrowserWebSocket,
  });
  hub.onState((s) => states.push(s));
  return { hub, states, profile, posts, cleared: () => cleared, close: () => hub.close() };
}

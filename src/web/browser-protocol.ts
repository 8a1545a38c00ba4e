// What the control server and the page in a browser agree on. No node imports: the renderer
// uses it as is.
//
// Sign-in: `patchbay open` writes a page only you can read (`<home>/sign-in/<random>.html`)
// and opens that file, so no secret is in any command line; the page forwards the browser to
// `http://127.0.0.1:<port>/#signin=<one-time secret>`. The fragment never reaches a server
// (requests, logs, Referer). The page strips it from the address bar and trades it (POST
// SESSION_PATH, from its own Origin) for a session credential that it keeps in IndexedDB, its
// secret as a key no script can read back: one sign-in per browser profile and address, shared
// by its tabs; no cookie, so no other port on 127.0.0.1 ever receives it.
//
// The credential is bound to the origin it was made for and is never sent whole again: to
// renew it, the page asks for a one-time challenge and answers with an HMAC of it under the
// credential's secret part (session-proof.ts), so whoever holds the port while Patchbay is
// away learns nothing it could use. Each sign-in or renewal also brings a one-time ticket,
// which the page presents as a WebSocket subprotocol of its `/api` socket. Sessions end when
// idle too long, at an absolute limit, or when every sign-in is revoked
// (`patchbay open --revoke-all`).

export const API_PATH = '/api';
export const SESSION_PATH = '/session';
/** The fragment key of a sign-in link. */
export const SIGNIN_PARAM = 'signin';
/** The subprotocol the server echoes to a browser. */
export const BROWSER_PROTOCOL = 'patchbay';
/** A second subprotocol, `patchbay.ticket.<ticket>`, carries a one-time ticket; never echoed. */
export const TICKET_PROTOCOL_PREFIX = 'patchbay.ticket.';
/** The close code of a socket whose sign-in ended (expired or revoked): sign in again, do not retry. */
export const SIGNED_OUT_CLOSE_CODE = 4401;
/** The status of a renewal whose challenge is unknown (expired, or crowded out): ask for another. */
export const STALE_CHALLENGE_STATUS = 409;

/**
 * The body of POST SESSION_PATH: a one-time secret to trade; a request for a challenge; or a
 * renewal: the credential's public claim, the challenge and the proof of its secret part.
 */
export type SessionRequest = { signin: string } | { challenge: true } | { renew: string; nonce: string; proof: string };

export interface SessionAnswer {
  credential: string;
  /** When it stops working unless renewed, in the server's clock (for display). */
  expiresAt: number;
  /** When the page should renew it, from now. */
  renewInMs: number;
  /** Opens one `/api` socket, within a short while. */
  ticket: string;
}

export interface ChallengeAnswer {
  nonce: string;
}

export function isSessionAnswer(value: unknown): value is SessionAnswer {
  const v = value as Partial<SessionAnswer> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.credential === 'string' &&
    typeof v.expiresAt === 'number' &&
    typeof v.renewInMs === 'number' &&
    typeof v.ticket === 'string'
  );
}

export function isChallengeAnswer(value: unknown): value is ChallengeAnswer {
  const v = value as Partial<ChallengeAnswer> | null;
  return typeof v === 'object' && v !== null && typeof v.nonce === 'string' && /^[0-9a-f]{64}$/.test(v.nonce);
}

/** The ticket a browser offered in `Sec-WebSocket-Protocol`, if it offered one. */
export function ticketFromProtocols(header: string | undefined): string | null {
  for (const protocol of (header ?? '').split(',')) {
    const trimmed = protocol.trim();
    if (trimmed.startsWith(TICKET_PROTOCOL_PREFIX)) return trimmed.slice(TICKET_PROTOCOL_PREFIX.length);
  }
  return null;
}

/** The one-time secret in a location hash (`#signin=<hex>`), if that is what it holds. */
export function signInSecretFrom(hash: string): string | null {
  const match = new RegExp(`^#${SIGNIN_PARAM}=([0-9a-f]{64})$`).exec(hash);
  return match?.[1] ?? null;
}

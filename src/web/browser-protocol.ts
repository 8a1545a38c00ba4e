// What the control server and the page in a browser agree on. No node imports: the renderer
// uses it as is.
//
// Sign-in: `patchbay open` makes a link `http://127.0.0.1:<port>/#signin=<one-time secret>`.
// The fragment never reaches a server (requests, logs, Referer). The page strips it from the
// address bar and trades it (POST SESSION_PATH, from its own Origin) for a session credential
// that it keeps in sessionStorage: no cookie, so no other port on 127.0.0.1 ever receives it.
// The page presents the credential as a WebSocket subprotocol of its `/api` socket and
// renews it while it is open; sessions end when idle too long, at an absolute limit, or when
// every sign-in is revoked (`patchbay open --revoke-all`).

export const API_PATH = '/api';
export const SESSION_PATH = '/session';
/** The fragment key of a sign-in link. */
export const SIGNIN_PARAM = 'signin';
/** The subprotocol the server echoes to a browser. */
export const BROWSER_PROTOCOL = 'patchbay';
/** A second subprotocol, `patchbay.session.<credential>`, carries the credential; never echoed. */
export const CREDENTIAL_PROTOCOL_PREFIX = 'patchbay.session.';
/** The close code of a socket whose sign-in ended (expired or revoked): sign in again, do not retry. */
export const SIGNED_OUT_CLOSE_CODE = 4401;

/** The body of POST SESSION_PATH: a one-time secret to trade, or a credential to renew. */
export type SessionRequest = { signin: string } | { renew: string };

export interface SessionAnswer {
  credential: string;
  /** When it stops working unless renewed, in the server's clock (for display). */
  expiresAt: number;
  /** When the page should renew it, from now. */
  renewInMs: number;
}

export function isSessionAnswer(value: unknown): value is SessionAnswer {
  const v = value as Partial<SessionAnswer> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.credential === 'string' && typeof v.expiresAt === 'number' && typeof v.renewInMs === 'number'
  );
}

/** The credential a browser offered in `Sec-WebSocket-Protocol`, if it offered one. */
export function credentialFromProtocols(header: string | undefined): string | null {
  for (const protocol of (header ?? '').split(',')) {
    const trimmed = protocol.trim();
    if (trimmed.startsWith(CREDENTIAL_PROTOCOL_PREFIX)) return trimmed.slice(CREDENTIAL_PROTOCOL_PREFIX.length);
  }
  return null;
}

/** The one-time secret in a location hash (`#signin=<hex>`), if that is what it holds. */
export function signInSecretFrom(hash: string): string | null {
  const match = new RegExp(`^#${SIGNIN_PARAM}=([0-9a-f]{64})$`).exec(hash);
  return match?.[1] ?? null;
}

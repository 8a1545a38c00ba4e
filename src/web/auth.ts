// Credentials of the control server: the CLI's bearer token, one-time browser tokens and
// the browser sessions they turn into.
import { createHmac } from 'node:crypto';
import { newToken, tokensEqual } from '../transport/tokens.ts';

/** The token of an `Authorization: Bearer <token>` header, if that is what it holds. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? '');
  return match?.[1] ?? null;
}

/** Tokens that open the UI in a browser: each works once, and only for a short while. */
export class OneTimeTokens {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  mint(): string {
    this.prune();
    const token = newToken();
    this.expiries.set(token, this.now() + this.ttlMs);
    return token;
  }

  /** True once per minted token, before it expires. */
  consume(given: string): boolean {
    this.prune();
    for (const token of this.expiries.keys()) {
      if (tokensEqual(given, token)) {
        this.expiries.delete(token);
        return true;
      }
    }
    return false;
  }

  private prune(): void {
    const now = this.now();
    for (const [token, expiresAt] of this.expiries) if (expiresAt <= now) this.expiries.delete(token);
  }
}

export interface SessionPolicy {
  /** A sign-in not renewed for this long is over (the page renews it while it is open). */
  idleMs: number;
  /** A sign-in is over this long after the one-time link made it, renewed or not. */
  maxMs: number;
}

/** A credential and when, unless renewed, it stops working. */
export interface IssuedCredential {
  credential: string;
  expiresAt: number;
}

export interface BrowserSession {
  id: string;
  issuedAt: number;
  /** Idle or absolute expiry, whichever is first. */
  expiresAt: number;
  /** The absolute expiry: no renewal goes past it. */
  endsAt: number;
}

const CREDENTIAL = /^v1\.([0-9a-f]{32})\.([0-9a-z]{1,11})\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{43})$/;

/**
 * Browser sessions as self-contained credentials `v1.<id>.<issued>.<renewed>.<mac>` (times in
 * base 36, an HMAC-SHA256 under the signing key): nothing to store, so they outlive a
 * restart when the key does, and a new key ends them all. Each is made of characters a
 * WebSocket subprotocol may carry.
 */
export class BrowserSessions {
  constructor(
    private key: string,
    private readonly policy: SessionPolicy,
    private readonly now: () => number,
  ) {}

  /** A new session, for a consumed one-time link. */
  open(): IssuedCredential {
    const now = this.now();
    return this.sign(newToken().slice(0, 32), now, now);
  }

  /** The same session with its idle time restarted, or null when `given` is not (or no longer) valid. */
  renew(given: string): IssuedCredential | null {
    const session = this.verify(given);
    return session === null ? null : this.sign(session.id, session.issuedAt, this.now());
  }

  verify(given: string): BrowserSession | null {
    const match = CREDENTIAL.exec(given);
    if (!match) return null;
    const [, id, issuedText, renewedText, mac] = match as unknown as [string, string, string, string, string];
    if (!tokensEqual(mac, this.mac(id, issuedText, renewedText))) return null;
    const issuedAt = parseInt(issuedText, 36);
    const renewedAt = parseInt(renewedText, 36);
    const now = this.now();
    const endsAt = issuedAt + this.policy.maxMs;
    const expiresAt = Math.min(renewedAt + this.policy.idleMs, endsAt);
    if (renewedAt < issuedAt || now >= expiresAt) return null;
    return { id, issuedAt, expiresAt, endsAt };
  }

  /** Every credential signed so far stops working. */
  rekey(key: string): void {
    this.key = key;
  }

  private sign(id: string, issuedAt: number, renewedAt: number): IssuedCredential {
    const issued = issuedAt.toString(36);
    const renewed = renewedAt.toString(36);
    return {
      credential: `v1.${id}.${issued}.${renewed}.${this.mac(id, issued, renewed)}`,
      expiresAt: Math.min(renewedAt + this.policy.idleMs, issuedAt + this.policy.maxMs),
    };
  }

  private mac(id: string, issued: string, renewed: string): string {
    return createHmac('sha256', Buffer.from(this.key, 'hex')).update(`patchbay-browser-session.v1.${id}.${issued}.${renewed}`).digest('base64url');
  }
}

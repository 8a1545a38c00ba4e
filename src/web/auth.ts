// Credentials of the control server: the CLI's bearer token, one-time secrets (sign-in links,
// renewal challenges, socket tickets) and the browser sessions a sign-in link turns into.
import { createHash, createHmac } from 'node:crypto';
import { newToken, tokensEqual } from '../transport/tokens.ts';
import { proofMessage } from './session-proof.ts';

/** The token of an `Authorization: Bearer <token>` header, if that is what it holds. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? '');
  return match?.[1] ?? null;
}

/**
 * Secrets that each work once, and only for a short while, each with what it stands for.
 * Kept by their hash, so a lookup's timing says nothing about any secret; at most `capacity`
 * live at once (the oldest go first), so a flood of requests costs no memory.
 */
export class OneTimeTokens<T = true> {
  private readonly live = new Map<string, { value: T; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly capacity = 256,
  ) {}

  mint(value: T): string {
    this.prune();
    while (this.live.size >= this.capacity) this.live.delete(this.live.keys().next().value!);
    const token = newToken();
    this.live.set(digest(token), { value, expiresAt: this.now() + this.ttlMs });
    return token;
  }

  /** What `given` stands for, once per minted token before it expires; else undefined. */
  consume(given: string): T | undefined {
    this.prune();
    const key = digest(given);
    const entry = this.live.get(key);
    if (entry === undefined) return undefined;
    this.live.delete(key);
    return entry.value;
  }

  /** Every token stops working. */
  clear(): void {
    this.live.clear();
  }

  private prune(): void {
    const now = this.now();
    for (const [key, { expiresAt }] of this.live) if (expiresAt <= now) this.live.delete(key);
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
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
  /** The absolute expiry: no renewal goes past it. */
  endsAt: number;
}

const CLAIM = /^v2\.([0-9a-f]{32})\.([0-9a-z]{1,11})\.([0-9a-z]{1,11})$/;

/**
 * Browser sessions as self-contained credentials `<claim>.<secret>`, the claim
 * `v2.<id>.<issued>.<renewed>` (times in base 36), the secret an HMAC-SHA256 of the claim and
 * the server's origin under the signing key: nothing to store, so they outlive a restart when
 * the key and the port do, a new key ends them all, and one made for one port is worth nothing
 * on another. The page proves the secret for each renewal rather than sending it (see
 * session-proof.ts).
 */
export class BrowserSessions {
  constructor(
    private key: string,
    /** `http://127.0.0.1:<port>`: the only origin these credentials are good for. */
    private readonly origin: string,
    private readonly policy: SessionPolicy,
    private readonly now: () => number,
  ) {}

  /** A new session, for a consumed one-time link. */
  open(): IssuedCredential {
    const now = this.now();
    return this.sign(newToken().slice(0, 32), now, now);
  }

  /**
   * The session `claim` names with its idle time restarted, when `proof` shows its secret
   * answered `nonce` (a challenge this server issued) and the session is still valid; else null.
   */
  renew(claim: string, nonce: string, proof: string): IssuedCredential | null {
    const match = CLAIM.exec(claim);
    if (!match) return null;
    const [, id, issuedText, renewedText] = match as unknown as [string, string, string, string];
    const secret = this.secret(id, issuedText, renewedText);
    const expected = createHmac('sha256', Buffer.from(secret, 'base64url')).update(proofMessage(nonce)).digest('base64url');
    if (!tokensEqual(proof, expected)) return null;
    const issuedAt = parseInt(issuedText, 36);
    const renewedAt = parseInt(renewedText, 36);
    const now = this.now();
    if (renewedAt < issuedAt || now >= Math.min(renewedAt + this.policy.idleMs, issuedAt + this.policy.maxMs)) return null;
    return this.sign(id, issuedAt, now);
  }

  /** Every credential signed so far stops working. */
  rekey(key: string): void {
    this.key = key;
  }

  private sign(id: string, issuedAt: number, renewedAt: number): IssuedCredential {
    const issued = issuedAt.toString(36);
    const renewed = renewedAt.toString(36);
    const endsAt = issuedAt + this.policy.maxMs;
    return {
      credential: `v2.${id}.${issued}.${renewed}.${this.secret(id, issued, renewed)}`,
      expiresAt: Math.min(renewedAt + this.policy.idleMs, endsAt),
      endsAt,
    };
  }

  private secret(id: string, issued: string, renewed: string): string {
    return createHmac('sha256', Buffer.from(this.key, 'hex'))
      .update(`patchbay-browser-session.v2|${this.origin}|${id}|${issued}|${renewed}`)
      .digest('base64url');
  }
}

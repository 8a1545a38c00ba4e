// Credentials of the control server: the CLI's bearer token, one-time browser tokens and
// the browser sessions they turn into.
import { newToken, tokensEqual } from '../transport/tokens.ts';

/** The token of an `Authorization: Bearer <token>` header, if that is what it holds. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? '');
  return match?.[1] ?? null;
}

export function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
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

/** Browser sessions, known by the id in their HttpOnly cookie; they live as long as the server. */
export class BrowserSessions {
  private readonly ids: string[] = [];

  open(): string {
    const id = newToken();
    this.ids.push(id);
    return id;
  }

  has(given: string | null): boolean {
    if (given === null) return false;
    let found = false;
    for (const id of this.ids) found = tokensEqual(given, id) || found;
    return found;
  }
}

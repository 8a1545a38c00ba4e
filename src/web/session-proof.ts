// A browser credential as two parts: the claim (`v2.<id>.<issued>.<renewed>`, public) and its
// secret (the server's HMAC of the claim and the origin, base64url). Renewing proves the
// secret without sending it: HMAC-SHA256 of a server's one-time challenge under the secret.
// No node imports: the page computes proofs with WebCrypto, the server with node's crypto.

const CREDENTIAL = /^(v2\.[0-9a-f]{32}\.[0-9a-z]{1,11}\.[0-9a-z]{1,11})\.([A-Za-z0-9_-]{43})$/;

export interface CredentialParts {
  claim: string;
  secret: string;
}

export function splitCredential(credential: string): CredentialParts | null {
  const match = CREDENTIAL.exec(credential);
  return match ? { claim: match[1]!, secret: match[2]! } : null;
}

/** What a proof signs: the challenge, in a context of its own. */
export function proofMessage(nonce: string): string {
  return `patchbay-renew.v2|${nonce}`;
}

export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

export function toBase64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** A key that signs but cannot be read back (a browser's CryptoKey). */
export type SigningKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

/**
 * A sign-in as the page keeps it: the public claim, and the secret as a key no script can
 * export, so a page that reads the browser's storage at this address (another program on the
 * port while Patchbay is away) gets no secret it could use elsewhere or later.
 */
export interface KeptSignIn {
  claim: string;
  key: SigningKey;
}

export async function keepCredential(credential: string): Promise<KeptSignIn | null> {
  const parts = splitCredential(credential);
  if (parts === null) return null;
  const key = await globalThis.crypto.subtle.importKey('raw', fromBase64url(parts.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return { claim: parts.claim, key };
}

/** The page's answer to `nonce`: HMAC-SHA256 under the credential's secret, base64url. */
export async function prove(key: SigningKey, nonce: string): Promise<string> {
  const signature = await globalThis.crypto.subtle.sign('HMAC', key, new TextEncoder().encode(proofMessage(nonce)));
  return toBase64url(new Uint8Array(signature));
}

/** `prove` from the secret's text (for tests and tools that hold a whole credential). */
export async function proveSecret(secret: string, nonce: string): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey('raw', fromBase64url(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return prove(key, nonce);
}

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

/** The page's answer to `nonce`: HMAC-SHA256 under the credential's secret, base64url. */
export async function proveSecret(secret: string, nonce: string): Promise<string> {
  const { subtle } = globalThis.crypto;
  const key = await subtle.importKey('raw', fromBase64url(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = await subtle.sign('HMAC', key, new TextEncoder().encode(proofMessage(nonce)));
  return toBase64url(new Uint8Array(signature));
}

// Secrets agents and faces present: made from a CSPRNG, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 CSPRNG bytes as hex. */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Constant-time compare of two tokens of any length (hashed first so the buffers match). */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

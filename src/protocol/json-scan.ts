// Scanning JSON text as bytes, without decoding it: where a string ends, what ends a number or
// literal. Shared by the lazy reader and the frame weigher, which must agree on both.

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Index just past the closing quote of the string starting at `start`, or -1 when it does not
 * end. A module-level function, not a closure made per frame: it is the one hot loop (a quote in
 * every ~40 bytes of source).
 */
export function stringEnd(bytes: Buffer, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    if (bytes[quote - 1] !== BACKSLASH) return quote + 1;
    // Escaped unless the backslashes before it escape each other.
    let before = quote - 2;
    while (bytes[before] === BACKSLASH) before--;
    if ((quote - 1 - before) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

export function isDelimiter(c: number): boolean {
  return c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

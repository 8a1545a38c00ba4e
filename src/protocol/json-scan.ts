// Scanning JSON text as bytes, without decoding it: where a string ends, what ends a number or
// literal. Shared by the lazy reader and the frame weigher, which must agree on both.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;

/** Where a value sits in its frame's bytes: [start, end). */
export interface ByteRange {
  start: number;
  end: number;
}

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

export function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

export function isDelimiter(c: number): boolean {
  return c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index just past the object or array starting at `start` (strings skipped whole), or -1 when it does not end. */
export function containerEnd(bytes: Buffer, start: number): number {
  let depth = 0;
  let at = start;
  const end = bytes.length;
  while (at < end) {
    const c = bytes[at++];
    if (c === QUOTE) {
      at = stringEnd(bytes, at - 1);
      if (at < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return at;
  }
  return -1;
}

function spaceEnd(bytes: Buffer, at: number): number {
  while (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09) at++;
  return at;
}

/** Index just past the value starting at `at` (a string, a container, a number or literal), or -1. */
function valueEnd(bytes: Buffer, at: number): number {
  const c = bytes[at];
  if (c === QUOTE) return stringEnd(bytes, at);
  if (c === 0x7b || c === 0x5b) return containerEnd(bytes, at);
  let end = at;
  while (end < bytes.length && !isDelimiter(bytes[end]!)) end++;
  return end === at ? -1 : end;
}

/** Whether the key string in bytes [start, end) (quotes included) is "id", however it is escaped (`"\u0069\u0064"` at most). */
function isIdKey(bytes: Buffer, start: number, end: number): boolean {
  if (end - start === 4) return bytes[start + 1] === 0x69 && bytes[start + 2] === 0x64;
  if (end - start > 14 || !bytes.subarray(start, end).includes(BACKSLASH)) return false;
  try {
    return JSON.parse(bytes.toString('utf8', start, end)) === 'id';
  } catch {
    return false;
  }
}

/**
 * Where the top-level object's "id" value sits in a frame, read from its bytes (strings and
 * nested values skipped whole): null when the frame is not an object, has no "id", or has it
 * twice (then which one counts depends on the parser).
 */
export function topLevelIdAt(bytes: Buffer): ByteRange | null {
  let at = spaceEnd(bytes, 0);
  if (bytes[at] !== 0x7b) return null;
  at = spaceEnd(bytes, at + 1);
  if (bytes[at] === 0x7d) return null;
  let found: ByteRange | null = null;
  for (;;) {
    if (bytes[at] !== QUOTE) return null;
    const keyEnd = stringEnd(bytes, at);
    if (keyEnd < 0) return null;
    const isId = isIdKey(bytes, at, keyEnd);
    at = spaceEnd(bytes, keyEnd);
    if (bytes[at] !== 0x3a) return null;
    const start = spaceEnd(bytes, at + 1);
    at = valueEnd(bytes, start);
    if (at < 0) return null;
    if (isId) {
      if (found) return null;
      found = { start, end: at };
    }
    at = spaceEnd(bytes, at);
    if (bytes[at] === 0x7d) return found;
    if (bytes[at] !== 0x2c) return null;
    at = spaceEnd(bytes, at + 1);
  }
}

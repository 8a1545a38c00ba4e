// Whether a frame is JSON, checked on its bytes without building anything, and what its top-level
// object holds of a JSON-RPC envelope. An answer Patchbay only passes on (rpc-link.ts) needs no
// more than that: JSON.parse would build the whole answer to throw it away, and a second walk
// would still have to find its id. Conservative: whatever it is unsure of (an escaped top-level
// key, nesting deeper than MAX_DEPTH) it calls unchecked, and the frame is parsed as usual.
import { BACKSLASH, isHex, QUOTE, type ByteRange } from './json-scan.ts';

/** A frame checked to be one JSON object: which envelope keys it has, and where its one "id" value sits. */
export interface CheckedEnvelope {
  idAt: ByteRange | null;
  method: boolean;
  result: boolean;
  error: boolean;
}

/** Deeper than this is left to JSON.parse (the check keeps its own stack, of this size). */
const MAX_DEPTH = 64;

const WHITESPACE = new Uint8Array(256);
for (const c of ' \t\n\r') WHITESPACE[c.charCodeAt(0)] = 1;
/** What may follow a backslash, but for `u` (four hex digits follow it). */
const ESCAPED = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPED[c.charCodeAt(0)] = 1;

const OBJECT = 1;
const ARRAY = 2;
const containers = new Uint8Array(MAX_DEPTH);

// What comes next.
const KEY_OR_CLOSE = 0;
const KEY = 1;
const VALUE_OR_CLOSE = 2;
const VALUE = 3;
const AFTER_VALUE = 4;

// Top-level keys, as bits of `seen`.
const ID = 1;
const METHOD = 2;
const RESULT = 3;
const ERROR = 4;
const OTHER = 5;

/**
 * The envelope of `bytes` when they are exactly one JSON object (what JSON.parse accepts, with
 * whitespace around it) whose "id", "method", "result" and "error" each appear at most once;
 * null otherwise, or when unsure.
 */
export function checkedEnvelope(bytes: Uint8Array): CheckedEnvelope | null {
  const end = bytes.length;
  let at = 0;
  while (at < end && WHITESPACE[bytes[at]!] === 1) at++;
  if (bytes[at] !== 0x7b) return null;
  containers[0] = OBJECT;
  let depth = 1;
  at++;
  let next = KEY_OR_CLOSE;
  let key = OTHER;
  let idAt: ByteRange | null = null;
  let seen = 0;
  for (;;) {
    while (at < end && WHITESPACE[bytes[at]!] === 1) at++;
    if (depth === 0) {
      if (at !== end) return null;
      return { idAt, method: (seen & (1 << METHOD)) !== 0, result: (seen & (1 << RESULT)) !== 0, error: (seen & (1 << ERROR)) !== 0 };
    }
    if (at >= end) return null;
    const c = bytes[at]!;
    if (next === AFTER_VALUE) {
      const container = containers[depth - 1];
      if (c === 0x2c) {
        at++;
        next = container === OBJECT ? KEY : VALUE;
      } else if (c === (container === OBJECT ? 0x7d : 0x5d)) {
        at++;
        depth--;
      } else return null;
    } else if (next === KEY || (next === KEY_OR_CLOSE && c !== 0x7d)) {
      if (c !== QUOTE) return null;
      const start = at;
      at = stringEnd(bytes, at, end);
      if (at < 0) return null;
      if (depth === 1) {
        key = topLevelKey(bytes, start, at);
        if (key === 0) return null;
        if (key !== OTHER) {
          if ((seen & (1 << key)) !== 0) return null;
          seen |= 1 << key;
        }
      }
      while (at < end && WHITESPACE[bytes[at]!] === 1) at++;
      if (bytes[at] !== 0x3a) return null;
      at++;
      next = VALUE;
    } else if (next === KEY_OR_CLOSE || (next === VALUE_OR_CLOSE && c === 0x5d)) {
      at++;
      depth--;
      next = AFTER_VALUE;
    } else if (c === 0x7b || c === 0x5b) {
      if (depth === MAX_DEPTH) return null;
      containers[depth++] = c === 0x7b ? OBJECT : ARRAY;
      at++;
      next = c === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
    } else {
      const start = at;
      at = scalarEnd(bytes, at, end);
      if (at < 0) return null;
      if (depth === 1 && key === ID) idAt = { start, end: at };
      next = AFTER_VALUE;
    }
  }
}

/** Index past the string whose opening quote is at `at`, or -1 when it is not a JSON string. */
function stringEnd(bytes: Uint8Array, at: number, end: number): number {
  at++;
  while (at < end) {
    const c = bytes[at]!;
    if (c === QUOTE) return at + 1;
    if (c === BACKSLASH) {
      const escaped = bytes[at + 1]!;
      if (escaped === 0x75) {
        if (!isHex(bytes[at + 2]) || !isHex(bytes[at + 3]) || !isHex(bytes[at + 4]) || !isHex(bytes[at + 5])) return -1;
        at += 6;
      } else if (ESCAPED[escaped] === 1) at += 2;
      else return -1;
    } else if (c < 0x20) return -1;
    else at++;
  }
  return -1;
}

/** Index past the run of decimal digits at `at` (`at` itself when there is none). */
export function digitsEnd(bytes: Uint8Array, at: number, end: number): number {
  while (at < end && bytes[at]! >= 0x30 && bytes[at]! <= 0x39) at++;
  return at;
}

function numberEnd(bytes: Uint8Array, at: number, end: number): number {
  if (bytes[at] === 0x2d) at++;
  if (bytes[at] === 0x30) at++;
  else if (bytes[at]! >= 0x31 && bytes[at]! <= 0x39) at = digitsEnd(bytes, at + 1, end);
  else return -1;
  if (bytes[at] === 0x2e) {
    const digits = at + 1;
    at = digitsEnd(bytes, digits, end);
    if (at === digits) return -1;
  }
  if (bytes[at] === 0x65 || bytes[at] === 0x45) {
    at++;
    if (bytes[at] === 0x2b || bytes[at] === 0x2d) at++;
    const digits = at;
    at = digitsEnd(bytes, digits, end);
    if (at === digits) return -1;
  }
  return at;
}

/** Index past the string, number or literal at `at`, or -1. */
function scalarEnd(bytes: Uint8Array, at: number, end: number): number {
  const c = bytes[at]!;
  if (c === QUOTE) return stringEnd(bytes, at, end);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return numberEnd(bytes, at, end);
  if (c === 0x74) return bytes[at + 1] === 0x72 && bytes[at + 2] === 0x75 && bytes[at + 3] === 0x65 ? at + 4 : -1;
  if (c === 0x66) return bytes[at + 1] === 0x61 && bytes[at + 2] === 0x6c && bytes[at + 3] === 0x73 && bytes[at + 4] === 0x65 ? at + 5 : -1;
  if (c === 0x6e) return bytes[at + 1] === 0x75 && bytes[at + 2] === 0x6c && bytes[at + 3] === 0x6c ? at + 4 : -1;
  return -1;
}

/** Which envelope key the key string in [start, end) (quotes included) is; 0 when it has an escape (it could spell one). */
function topLevelKey(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start - 2;
  if (length === 2 && spells(bytes, start + 1, 'id')) return ID;
  if (length === 6 && spells(bytes, start + 1, 'method')) return METHOD;
  if (length === 6 && spells(bytes, start + 1, 'result')) return RESULT;
  if (length === 5 && spells(bytes, start + 1, 'error')) return ERROR;
  for (let i = start + 1; i < end - 1; i++) if (bytes[i] === BACKSLASH) return 0;
  return OTHER;
}

function spells(bytes: Uint8Array, at: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) if (bytes[at + i] !== word.charCodeAt(i)) return false;
  return true;
}

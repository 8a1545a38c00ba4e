// JSON read from bytes with its big strings left as bytes until someone needs them.
// A 10 MiB file in an editor's FILE_SAVED costs ~50 ms to decode and parse; Patchbay only
// needs the small parts (id, "FILE_SAVED") to pass the frame on, and the file itself later.
// Skipping a string is a memchr for its closing quote, so the walk costs a few ms.

import { isAscii } from 'node:buffer';
import { CONTAINER_COST, MAX_DEPTH, SCALAR_COST } from './frame-cost.ts';
import { BACKSLASH, isDelimiter, isHex, QUOTE, stringEnd, type ByteRange } from './json-scan.ts';

export type { ByteRange };

/**
 * A JSON string still in its frame's bytes (quotes and escapes included). It keeps the frame
 * alive, and is what is held (a diff's proposal waits as its bytes): decoding is not cached.
 */
export class LazyText {
  constructor(
    private readonly bytes: Buffer,
    private readonly start: number,
    private readonly end: number,
  ) {}

  /** Its bytes as they stand in the frame, quotes included. */
  get raw(): Buffer {
    return this.bytes.subarray(this.start, this.end);
  }

  /** Its size in the frame, in bytes. */
  get byteLength(): number {
    return this.end - this.start;
  }

  /** Whether `frame` holds these same bytes from `at` on. */
  occursAt(frame: Buffer, at: number): boolean {
    const length = this.end - this.start;
    return frame.length - at >= length && frame.compare(this.bytes, this.start, this.end, at, at + length) === 0;
  }

  /**
   * Whether its bytes are a well-formed JSON string (every escape valid, no raw control character),
   * as JSON.parse would accept it, without decoding it: what a reader may be sent as is.
   */
  wellFormed(): boolean {
    this.checked ??= this.scan();
    return this.checked;
  }

  /** Its bytes do not change: they are checked once. */
  private checked: boolean | undefined;

  /** Its bytes with every character outside ASCII as a \u escape (see asciiJson); made once. */
  asciiRaw(): Buffer {
    if (this.ascii === undefined) {
      const raw = this.raw;
      this.ascii = isAscii(raw) ? raw : Buffer.from(asciiJson(raw.toString('utf8')), 'latin1');
    }
    return this.ascii;
  }

  private ascii: Buffer | undefined;

  private scan(): boolean {
    const { bytes, start, end } = this;
    if (end - start < 2 || bytes[start] !== QUOTE || bytes[end - 1] !== QUOTE) return false;
    for (let i = start + 1; i < end - 1; i++) {
      const c = bytes[i]!;
      if (c < 0x20) return false;
      if (c !== BACKSLASH) continue;
      // An escape must not reach into the closing quote.
      if (++i >= end - 1) return false;
      const e = bytes[i];
      if (e === 0x75) {
        // \uXXXX
        if (i + 4 >= end - 1) return false;
        for (let k = 1; k <= 4; k++) if (!isHex(bytes[i + k])) return false;
        i += 4;
      } else if (e !== QUOTE && e !== BACKSLASH && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) {
        return false;
      }
    }
    return true;
  }

  /** Decodes it; throws a SyntaxError for a malformed string (an invalid escape, a control character). */
  value(): string {
    return JSON.parse(this.bytes.toString('utf8', this.start, this.end)) as string;
  }

  /** Where it must become JSON text the slow way (JSON.stringify of a message holding it): its value. */
  toJSON(): string {
    return this.value();
  }
}

const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_ALL = /[^\x00-\x7f]/g;
const escapeUnit = (unit: string): string => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text with every character outside ASCII written as a \u escape (each UTF-16 unit, so a
 * pair for one above U+FFFF): the same value to any JSON reader. A browser's TextDecoder reads
 * ASCII ~5× faster than UTF-8 with anything else in it (4.4 MB of code: ~19 ms against ~90 ms in
 * Chromium here), and one non-ASCII byte sends the whole message down the slow way.
 */
export function asciiJson(json: string): string {
  return NON_ASCII.test(json) ? json.replace(NON_ASCII_ALL, escapeUnit) : json;
}

/** How encodeJsonPieces writes: `ascii`, as asciiJson (for a browser). */
export interface JsonPiecesOptions {
  ascii?: boolean;
}

/**
 * The JSON text of `value`, as JSON.stringify writes it, except that each LazyText in it is
 * written as the bytes it arrived in, never decoded: in pieces, the text around each LazyText
 * and the LazyText's own bytes, so that a whole file is not even copied (they can be written as
 * one WebSocket frame, or to a browser as the fragments of one message).
 */
export function encodeJsonPieces(value: unknown, options: JsonPiecesOptions = {}): Buffer[] {
  const pieces: Buffer[] = [];
  const ascii = options.ascii === true;
  const flush = (json: string): Buffer => Buffer.from(ascii ? asciiJson(json) : json, 'utf8');
  let text = '';
  const write = (item: unknown): void => {
    if (item instanceof LazyText) {
      if (text !== '') pieces.push(flush(text));
      pieces.push(ascii ? item.asciiRaw() : item.raw);
      text = '';
    } else if (Array.isArray(item)) {
      text += '[';
      item.forEach((element: unknown, i) => {
        if (i > 0) text += ',';
        write(element === undefined || typeof element === 'function' || typeof element === 'symbol' ? null : element);
      });
      text += ']';
    } else if (typeof item === 'object' && item !== null && typeof (item as { toJSON?: unknown }).toJSON !== 'function') {
      text += '{';
      let first = true;
      for (const [key, element] of Object.entries(item)) {
        if (element === undefined || typeof element === 'function' || typeof element === 'symbol') continue;
        text += `${first ? '' : ','}${JSON.stringify(key)}:`;
        first = false;
        write(element);
      }
      text += '}';
    } else {
      text += JSON.stringify(item) ?? 'null';
    }
  };
  write(value);
  if (text !== '' || pieces.length === 0) pieces.push(flush(text));
  return pieces;
}

/** encodeJsonPieces in one buffer (a file to write). */
export function encodeJson(value: unknown, options: JsonPiecesOptions = {}): Buffer {
  return Buffer.concat(encodeJsonPieces(value, options));
}

/** Whether `value` holds a LazyText anywhere (then it is sent with encodeJson). */
export function holdsLazyText(value: unknown): boolean {
  if (value instanceof LazyText) return true;
  if (Array.isArray(value)) return value.some(holdsLazyText);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(holdsLazyText);
  return false;
}

class NotReadable extends Error {}

/**
 * A frame read lazily: its value, where the top-level object's "id" value sits (null: it has
 * none), and about what its values cost in memory beside the frame's bytes (frame-cost.ts).
 */
export interface LazyRead {
  value: unknown;
  idAt: ByteRange | null;
  cost: number;
}

/**
 * Reads `bytes` as JSON.parse would, except that strings of `lazyBytes` bytes or more come back
 * as LazyText. Returns undefined for anything it does not read (malformed, too deep, a key
 * twice in one object, values that would cost more than `maxCost`): the caller then weighs the
 * frame and uses JSON.parse, whose error names the problem.
 *
 * A key twice is not read because peers disagree about it (JSON.parse keeps the last, some
 * parsers the first): a frame passed on as its bytes must mean to the peer what it meant here.
 * With every key once, the top-level "id" found here is the one any parser finds, so the frame
 * can be sent on under another id by replacing only those bytes (see `idAt`).
 *
 * `known`: big strings the frame is expected to hold (an editor's FILE_SAVED of the proposal it
 * was sent): where one of them stands byte for byte, it is returned itself, found with a memcmp
 * instead of a scan for its end. That is sound: a known string's bytes hold no unescaped quote
 * before their last, so the same bytes here end where it ends.
 */
export function parseLazily(bytes: Buffer, lazyBytes: number, known: readonly LazyText[] = [], maxCost = Infinity): LazyRead | undefined {
  let at = 0;
  let idAt: ByteRange | null = null;
  let cost = 0;
  // The walk checks the frame's structure and finds its big strings; JSON.parse then reads the
  // rest (the frame with "" for each big string) and each LazyText is put where its "" is. Its
  // objects are JSON.parse's own, the same hidden classes as a small frame's: code optimized for
  // small requests keeps working when a big one arrives.
  const skeleton: Buffer[] = [];
  let copied = 0;
  const path: (string | number)[] = [];
  const lazies: { path: (string | number)[]; text: LazyText }[] = [];
  const costs = (n: number): void => {
    cost += n;
    if (cost > maxCost) throw new NotReadable();
  };

  const space = (): void => {
    for (;;) {
      const c = bytes[at];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) at++;
      else return;
    }
  };

  const expect = (c: number): void => {
    space();
    if (bytes[at] !== c) throw new NotReadable();
    at++;
  };

  const keptAsBytes = (text: LazyText, start: number): void => {
    skeleton.push(bytes.subarray(copied, start), EMPTY_STRING);
    copied = at;
    lazies.push({ path: [...path], text });
    costs(SCALAR_COST);
  };

  const string = (): void => {
    const start = at;
    for (const text of known) {
      if (text.occursAt(bytes, start)) {
        at = start + text.byteLength;
        return keptAsBytes(text, start);
      }
    }
    const end = stringEnd(bytes, start);
    if (end < 0) throw new NotReadable();
    at = end;
    if (end - start >= lazyBytes) return keptAsBytes(new LazyText(bytes, start, end), start);
    costs(SCALAR_COST + end - start);
  };

  const key = (): string => {
    const start = at;
    const end = stringEnd(bytes, start);
    if (end < 0) throw new NotReadable();
    at = end;
    costs(SCALAR_COST + end - start);
    return JSON.parse(bytes.toString('utf8', start, end)) as string;
  };

  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) throw new NotReadable();
    space();
    const c = bytes[at];
    if (c === QUOTE) return string();
    if (c === 0x7b) return object(depth);
    if (c === 0x5b) return array(depth);
    // Numbers and literals are short: JSON.parse reads (and checks) them with the rest.
    const start = at;
    while (at < bytes.length && !isDelimiter(bytes[at]!)) at++;
    if (at === start) throw new NotReadable();
    costs(SCALAR_COST);
  };

  const object = (depth: number): void => {
    at++; // {
    costs(CONTAINER_COST);
    space();
    if (bytes[at] === 0x7d) {
      at++;
      return;
    }
    const keys = new Set<string>();
    for (;;) {
      space();
      if (bytes[at] !== QUOTE) throw new NotReadable();
      const name = key();
      if (keys.has(name)) throw new NotReadable();
      keys.add(name);
      expect(0x3a);
      space();
      const start = at;
      path.push(name);
      value(depth + 1);
      path.pop();
      if (depth === 0 && name === 'id') idAt = { start, end: at };
      space();
      const next = bytes[at++];
      if (next === 0x7d) return;
      if (next !== 0x2c) throw new NotReadable();
    }
  };

  const array = (depth: number): void => {
    at++; // [
    costs(CONTAINER_COST);
    space();
    if (bytes[at] === 0x5d) {
      at++;
      return;
    }
    for (let index = 0; ; index++) {
      path.push(index);
      value(depth + 1);
      path.pop();
      space();
      const next = bytes[at++];
      if (next === 0x5d) return;
      if (next !== 0x2c) throw new NotReadable();
    }
  };

  try {
    value(0);
    space();
    if (at !== bytes.length) return undefined;
    skeleton.push(bytes.subarray(copied));
    const result = JSON.parse((skeleton.length === 1 ? bytes : Buffer.concat(skeleton)).toString('utf8')) as unknown;
    return { value: withLazyTexts(result, lazies), idAt, cost };
  } catch (err) {
    if (err instanceof NotReadable || err instanceof SyntaxError || err instanceof RangeError) return undefined;
    throw err;
  }
}

const EMPTY_STRING = Buffer.from('""');

/** `value` with each LazyText put at its path (where the skeleton had ""). */
function withLazyTexts(value: unknown, lazies: readonly { path: readonly (string | number)[]; text: LazyText }[]): unknown {
  for (const { path, text } of lazies) {
    if (path.length === 0) return text;
    let holder = value as Record<string | number, unknown>;
    for (let i = 0; i < path.length - 1; i++) holder = holder[path[i]!] as Record<string | number, unknown>;
    // An own "__proto__" (JSON.parse makes one for that key) is found before Object.prototype's setter.
    holder[path[path.length - 1]!] = text;
  }
  return value;
}

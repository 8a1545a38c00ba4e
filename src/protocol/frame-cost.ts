// What taking a frame in costs (DESIGN §10). The values JSON.parse makes of a frame can cost many
// times its bytes: 60 MB of `{},{},…` became 1.6 GiB of objects. So a frame is weighed from its
// bytes before it is parsed (a walk that skips strings with memchr and allocates nothing), and
// one whose values would cost more than twice its size is refused unread; what a frame is let
// in for is what the pending budget counts while it is held.
import type { RpcId } from './jsonrpc.ts';
import { containerEnd, isDelimiter, QUOTE, stringEnd } from './json-scan.ts';

/**
 * About what JSON.parse makes of each value, in bytes (V8 12 with pointer compression, as in
 * Node 20; measured with process.memoryUsage over millions of them): an object ~64 with its slot
 * in its parent, an array ~41, a number or literal ~10, a string ~12 beside its characters.
 */
export const CONTAINER_COST = 64;
export const SCALAR_COST = 16;
/** Deeper than any peer's frame, and than what code walking a frame's values should recurse into. */
export const MAX_DEPTH = 64;
/** Room every frame has beside twice its size: small frames full of little values are fine. */
const ROOM = 256 * 1024;

/** What a frame of `size` bytes may cost parsed, beside its bytes. */
export function costLimit(size: number): number {
  return 2 * size + ROOM;
}

/**
 * Frames below this size cannot cost more than their limit, nor nest deeper than code walking
 * values recursively can go: no value costs more than CONTAINER_COST for its 2 bytes (`[]`), so
 * such a frame costs at most 32 times its size. They need no weighing before they are parsed
 * (getDiagnostics, before every model call, is one); what they hold is weighed only if held.
 */
export const UNWEIGHED_BELOW = Math.floor(ROOM / (CONTAINER_COST / 2 - 2));

export type FrameWeight = { ok: true; cost: number } | { ok: false; problem: string };

const MiB = 1024 * 1024;

function mib(n: number): string {
  return `${(n / MiB).toFixed(1)} MiB`;
}

/**
 * About what the values in `bytes` would cost parsed (strings count their bytes too), or why the
 * frame is not to be parsed: values over costLimit, or nesting deeper than MAX_DEPTH. It does not
 * check the syntax: a malformed frame weighs what it seems to, and JSON.parse then says what is wrong.
 */
export function weighFrame(bytes: Buffer): FrameWeight {
  const limit = costLimit(bytes.length);
  const tooCostly = (): FrameWeight => ({
    ok: false,
    problem: `a frame of ${mib(bytes.length)} holding so many JSON values (objects, arrays, numbers) that reading it would take over ${mib(limit)} is not read`,
  });
  let cost = 0;
  let depth = 0;
  let at = 0;
  const end = bytes.length;
  while (at < end) {
    const c = bytes[at]!;
    if (c === QUOTE) {
      const after = stringEnd(bytes, at);
      if (after < 0) break; // unterminated: JSON.parse says so
      cost += SCALAR_COST + after - at;
      at = after;
      if (cost > limit) return tooCostly();
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) return { ok: false, problem: `a frame nested deeper than ${MAX_DEPTH} levels is not read` };
      cost += CONTAINER_COST;
      if (cost > limit) return tooCostly();
      at++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      at++;
    } else if (c === 0x2c || c === 0x3a || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      at++;
    } else {
      // A number or a literal: one value, however long.
      cost += SCALAR_COST;
      if (cost > limit) return tooCostly();
      do at++;
      while (at < end && !isDelimiter(bytes[at]!) && bytes[at] !== 0x3a);
    }
  }
  return { ok: true, cost };
}

/** The few fields a refused frame is answered by: whom it asked, and for what. */
export interface Envelope {
  /** The top-level "id": a string or a finite number; null when absent or anything else. */
  id: RpcId | null;
  method: string | null;
  /** A response (it has "result" or "error"). */
  response: boolean;
  /** A tools/call's `params.name`. */
  tool: string | null;
  /** A tools/call's `params.arguments.tab_name` (an openDiff's). */
  tabName: string | null;
}

/** Strings read from a refused frame are short: longer ones are not what a real peer sends. */
const MAX_FIELD_BYTES = 1024;

/** Ends the walk of a refused frame once every field it is answered by is known. */
class Known extends Error {}

/**
 * The envelope of a frame not to be parsed whole: its id, method, tool name and tab name, read
 * from its bytes while everything else is skipped unread, and no further than needed: a frame
 * that says what it is at its start is answered without a walk through the rest.
 */
export function peekEnvelope(bytes: Buffer): Envelope {
  const envelope: Envelope = { id: null, method: null, response: false, tool: null, tabName: null };
  const known = (): boolean =>
    envelope.response || (envelope.id !== null && envelope.method !== null && (envelope.method !== 'tools/call' || (envelope.tool !== null && (envelope.tool !== 'openDiff' || envelope.tabName !== null))));
  let at = 0;
  const space = (): void => {
    while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09)) at++;
  };
  /** Skips one value; false when it does not end. */
  const skip = (): boolean => {
    space();
    const c = bytes[at];
    if (c === QUOTE) {
      at = stringEnd(bytes, at);
      return at >= 0;
    }
    if (c !== 0x7b && c !== 0x5b) {
      while (at < bytes.length && !isDelimiter(bytes[at]!)) at++;
      return true;
    }
    at = containerEnd(bytes, at);
    return at >= 0;
  };
  /** A short scalar (string or number) as JSON.parse reads it, else undefined (and skipped). */
  const scalar = (): unknown => {
    space();
    const start = at;
    if (!skip() || at - start > MAX_FIELD_BYTES) return undefined;
    try {
      return JSON.parse(bytes.toString('utf8', start, at)) as unknown;
    } catch {
      return undefined;
    }
  };
  /** Walks an object's keys, calling `field` for each; false when the bytes are not an object to the end. */
  const object = (field: (key: string) => void): boolean => {
    space();
    if (bytes[at] !== 0x7b) return skip();
    at++;
    for (;;) {
      space();
      if (bytes[at] === 0x7d) {
        at++;
        return true;
      }
      const key = scalar();
      space();
      if (typeof key !== 'string' || bytes[at] !== 0x3a) return false;
      at++;
      const before = at;
      field(key);
      if (known()) throw new Known();
      if (at === before && !skip()) return false;
      space();
      if (bytes[at] === 0x2c) at++;
      else if (bytes[at] !== 0x7d) return false;
    }
  };
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  try {
    object((key) => {
      if (key === 'id') {
        const id = scalar();
        envelope.id = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
      } else if (key === 'method') envelope.method = text(scalar());
      else if (key === 'result' || key === 'error') envelope.response = true;
      else if (key === 'params') {
        object((param) => {
          if (param === 'name') envelope.tool = text(scalar());
          else if (param === 'arguments') {
            object((arg) => {
              if (arg === 'tab_name') envelope.tabName = text(scalar());
            });
          }
        });
      }
    });
  } catch (err) {
    if (!(err instanceof Known)) throw err;
  }
  return envelope;
}

// A diff's texts as they arrived, decoded only when someone reads them: the proposal as the
// JSON bytes of the agent's frame (a LazyText when the frame was big), the original as the
// file's bytes. Holding bytes costs their size once; a decoded 10 MiB file costs twice that
// and the decode itself, on the path every other session's traffic waits behind.
import { asciiJson, LazyText } from '../protocol/lazy-json.ts';

/** A proposal, or what an editor saved: decoded (a small frame) or still in its frame. */
export type ProposedText = string | LazyText;
/** Any text a diff holds: a proposal, or a file's bytes. */
export type HeldText = ProposedText | Buffer;

/**
 * A file's bytes from this size on are held as their JSON text once a person opens the diff:
 * each later opening, and the history's copy, sends or writes those bytes as they are.
 */
const JSON_HELD_FROM = 64 * 1024;

/** `text` as the JSON string it goes out as (a LazyText), when it is a big file's bytes; else itself. */
export function heldAsJson(text: HeldText): HeldText {
  if (!Buffer.isBuffer(text) || text.length < JSON_HELD_FROM) return text;
  const json = Buffer.from(asciiJson(JSON.stringify(text.toString('utf8'))), 'latin1');
  return new LazyText(json, 0, json.length);
}

/** The text; decoding a LazyText throws a SyntaxError when its JSON string is malformed. */
export function textOf(text: HeldText): string {
  if (typeof text === 'string') return text;
  return text instanceof LazyText ? text.value() : text.toString('utf8');
}

/** About how much memory it holds, in bytes (UTF-16 units for a string, which are not measured). */
export function heldSize(text: HeldText | null): number {
  if (text === null) return 0;
  if (typeof text === 'string') return text.length;
  return text instanceof LazyText ? text.byteLength : text.length;
}

/** What a decided diff's three texts hold together (what its history keeps, and frees once dropped). */
export function diffTextsSize(texts: { oldContents: HeldText | null; newContents: HeldText; finalContents: HeldText | null }): number {
  return heldSize(texts.oldContents) + heldSize(texts.newContents) + heldSize(texts.finalContents);
}

/** Whether both are still bytes of the same kind, and the same bytes (nothing is decoded). */
export function sameBytes(a: HeldText, b: HeldText): boolean {
  if (a instanceof LazyText && b instanceof LazyText) return a.raw.equals(b.raw);
  return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
}

/** Whether two texts are the same, comparing bytes where both are still bytes of the same kind. */
export function sameText(a: HeldText, b: HeldText): boolean {
  if (a === b || sameBytes(a, b)) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return false;
  return textOf(a) === textOf(b);
}

// The wire form of HubApi over any text-message socket (WebSocket, later Electron IPC).
//   client → server  {id, method, params}
//   server → client  {id, result} | {id, error: {message, code}} | {event}
// Pure encode/decode with validation; no node imports, so the browser renderer can use it.
import { HubError, isHubMethod, type HubEvent, type HubMethod } from './types.ts';
import { isObject } from './json.ts';

export type HubErrorCode = HubError['code'];
/** `internal` = a bug or an I/O failure in the hub, not the caller's mistake. */
export type WireErrorCode = HubErrorCode | 'internal';

export interface WireError {
  message: string;
  code: WireErrorCode;
}

export interface WireRequest {
  id: number;
  method: HubMethod;
  params: unknown;
}

export type ServerFrame =
  | { kind: 'result'; id: number; result: unknown }
  | { kind: 'error'; id: number; error: WireError }
  | { kind: 'event'; event: HubEvent };

export type DecodedRequest =
  | { ok: true; request: WireRequest }
  /** `id` is null when the frame is too broken to answer; the server then drops the connection. */
  | { ok: false; id: number | null; error: WireError };

const HUB_ERROR_CODES: readonly HubErrorCode[] = ['not-found', 'invalid', 'conflict', 'unavailable'];
const WIRE_ERROR_CODES: readonly WireErrorCode[] = [...HUB_ERROR_CODES, 'internal'];
const EVENT_TYPES: readonly HubEvent['type'][] = ['snapshot', 'diffAdded', 'diffDecided', 'pi'];

function isWireId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function isHubErrorCode(value: unknown): value is HubErrorCode {
  return typeof value === 'string' && (HUB_ERROR_CODES as readonly string[]).includes(value);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

export function encodeRequest(id: number, method: HubMethod, params: unknown): string {
  return JSON.stringify({ id, method, params });
}

/** Every command takes an object or nothing; shapes inside are the hub's to check. */
export function decodeRequest(text: string): DecodedRequest {
  const parsed = parseJson(text);
  if (!parsed.ok) return { ok: false, id: null, error: { code: 'invalid', message: `request is not JSON: ${parsed.message}` } };
  const frame = parsed.value;
  if (!isObject(frame)) return { ok: false, id: null, error: { code: 'invalid', message: 'request must be a JSON object' } };
  if (!isWireId(frame.id)) {
    return { ok: false, id: null, error: { code: 'invalid', message: 'request "id" must be a non-negative integer' } };
  }
  const id = frame.id;
  if (!isHubMethod(frame.method)) {
    const name = typeof frame.method === 'string' ? `"${frame.method}"` : 'missing or not a string';
    return { ok: false, id, error: { code: 'invalid', message: `unknown method ${name}` } };
  }
  if (frame.params !== undefined && frame.params !== null && !isObject(frame.params)) {
    return { ok: false, id, error: { code: 'invalid', message: `${frame.method}: "params" must be an object` } };
  }
  return { ok: true, request: { id, method: frame.method, params: frame.params ?? undefined } };
}

/** `undefined` results (void commands) travel as a frame without `result`. */
export function encodeResult(id: number, result: unknown): string {
  return JSON.stringify({ id, result });
}

export function encodeError(id: number, error: WireError): string {
  return JSON.stringify({ id, error: { message: error.message, code: error.code } });
}

/** HubErrors keep their code; anything else is the hub's own failure. */
export function toWireError(err: unknown): WireError {
  if (err instanceof HubError) return { message: err.message, code: err.code };
  if (err instanceof Error) return { message: err.message, code: 'internal' };
  return { message: String(err), code: 'internal' };
}

export function encodeEvent(event: HubEvent): string {
  return JSON.stringify({ event });
}

/**
 * A decided diff's written text is most often its proposal: a `diffs.get` answer then carries it
 * once, with this in `finalContents` (a big file's history view takes 4 MB, not 6).
 */
export const WRITTEN_AS_PROPOSED = { sameAs: 'newContents' } as const;

/** The result as the caller knows it: a `diffs.get` answer's written text restored (WRITTEN_AS_PROPOSED). */
export function expandResult(method: HubMethod, result: unknown): unknown {
  if (method !== 'diffs.get' || !isObject(result)) return result;
  const final = result.finalContents;
  if (!isObject(final) || final.sameAs !== WRITTEN_AS_PROPOSED.sameAs || typeof result.newContents !== 'string') return result;
  return { ...result, finalContents: result.newContents };
}

/** Throws an Error naming what is wrong; a server that sends such a frame is not trusted further. */
export function decodeServerFrame(text: string): ServerFrame {
  const parsed = parseJson(text);
  if (!parsed.ok) throw new Error(`hub sent a frame that is not JSON: ${parsed.message}`);
  const frame = parsed.value;
  if (!isObject(frame)) throw new Error('hub sent a frame that is not a JSON object');
  if ('event' in frame) {
    const event = frame.event;
    if (!isObject(event) || !(EVENT_TYPES as readonly unknown[]).includes(event.type)) {
      throw new Error(`hub sent an event of unknown type ${JSON.stringify(isObject(event) ? event.type : event)}`);
    }
    return { kind: 'event', event: event as unknown as HubEvent };
  }
  if (!isWireId(frame.id)) throw new Error('hub sent a reply whose "id" is not a non-negative integer');
  if ('error' in frame) {
    const error = frame.error;
    if (!isObject(error) || typeof error.message !== 'string' || !(WIRE_ERROR_CODES as readonly unknown[]).includes(error.code)) {
      throw new Error(`hub sent a malformed error for request ${frame.id}`);
    }
    return { kind: 'error', id: frame.id, error: { message: error.message, code: error.code as WireErrorCode } };
  }
  return { kind: 'result', id: frame.id, result: frame.result };
}

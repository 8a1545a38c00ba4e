// pi-ide asks getDiagnostics before every model call, and each time the request is the same
// bytes but for its id. A link remembers the last small request it parsed: a next one that is
// those bytes with another id is read without parsing it (the same object but for the id), and
// its params are encoded again from the JSON kept for them. What the editor reads is still what
// Patchbay read: the text differs only in the id, whose value is parsed on its own.
import { isId, type RpcId, type RpcRequest } from './jsonrpc.ts';
import { checkedEnvelope } from './json-check.ts';

/** Requests longer than this are parsed as usual (the memo keeps its text and its value). */
const MEMO_CHARS = 2048;

/**
 * The params objects memos hold, and their JSON once a request relayed with them was encoded
 * (null until then: a request Patchbay answers itself never needs it).
 */
const paramsJson = new WeakMap<object, string | null>();

export class RequestMemo {
  private constructor(
    /** The request's text before its id's value, and after it. */
    private readonly head: string,
    private readonly tail: string,
    private readonly request: RpcRequest,
    /** Whether the request is the bare envelope, its keys in the order JSON-RPC clients write them. */
    private readonly plain: boolean,
  ) {}

  /**
   * A memo of `request`, parsed from `text` (`bytes`, its UTF-8); null for a long or non-ASCII one
   * (where characters are not bytes) or one whose id json-check cannot place once.
   */
  static of(bytes: Buffer, text: string, request: RpcRequest): RequestMemo | null {
    if (text.length > MEMO_CHARS || text.length !== bytes.length) return null;
    const idAt = checkedEnvelope(bytes)?.idAt;
    if (!idAt) return null;
    const { params } = request;
    if (typeof params === 'object' && params !== null) paramsJson.set(params, null);
    const keys = Object.keys(request);
    const plain = keys.length === 4 && keys[0] === 'jsonrpc' && keys[1] === 'id' && keys[2] === 'method' && keys[3] === 'params';
    return new RequestMemo(text.slice(0, idAt.start), text.slice(idAt.end), request, plain);
  }

  /**
   * `text` read as the memo's request under the id it holds instead; null when it is anything
   * else. The value is the memo's (nothing reads a request's params to change them), new but for
   * the id.
   */
  read(text: string): RpcRequest | null {
    const { head, tail } = this;
    if (text.length <= head.length + tail.length || !text.startsWith(head) || !text.endsWith(tail)) return null;
    let id: unknown;
    try {
      id = JSON.parse(text.slice(head.length, text.length - tail.length));
    } catch {
      return null; // not one value: `1,"id":2` and the like
    }
    if (!isId(id)) return null;
    // A literal of the envelope's keys has the hidden class JSON.parse gives the same text; a
    // spread's copy has one of its own, and the relay's code, optimized for one, was thrown away
    // when a request of the other kind came (the first openDiff after a run of getDiagnostics).
    const { request } = this;
    return this.plain ? { jsonrpc: request.jsonrpc, id, method: request.method, params: request.params } : { ...request, id };
  }
}

/**
 * A request's JSON, as JSON.stringify writes what request() builds, around the JSON of its params
 * (encoded once) when a memo holds them; undefined otherwise.
 */
export function knownRequestJson(id: RpcId, method: string, params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const kept = paramsJson.get(params);
  if (kept === undefined) return undefined;
  const json = kept ?? JSON.stringify(params);
  if (kept === null) paramsJson.set(params, json);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${json}}`;
}

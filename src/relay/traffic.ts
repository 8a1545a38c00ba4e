// A bounded log of recent frames per session, for the traffic inspector.
import type { TrafficEntry } from '../api/types.ts';
import type { RpcMessage } from '../protocol/jsonrpc.ts';

const PREVIEW_CHARS = 400;
/** Ids, methods and tool names are the peer's to choose: a 40 MiB id must not live on in the log. */
const LABEL_CHARS = 100;

/** Slots a frame takes in the ring: at, dir, editorId, method, tool, id, bytes, text. */
const SLOTS = 8;
const TEXT = 7;

/**
 * Frames pass all the time (pi-ide's getDiagnostics before every model call, four frames a
 * call) and the inspector is opened now and then: a frame is kept as the few values it is
 * listed from, in one flat ring, and made into an entry only when listed.
 */
export class TrafficLog {
  private readonly ring: unknown[] = [];
  private written = 0;

  constructor(private readonly capacity: number) {}

  /** `bytes`: the frame's size when the caller knows it (measuring a 10 MiB string is not free). */
  record(
    dir: TrafficEntry['dir'],
    editorId: string | null,
    text: string,
    message: RpcMessage | null,
    at = Date.now(),
    bytes?: number,
  ): void {
    if (this.capacity <= 0) return;
    const msg = message?.msg as { id?: string | number | null; method?: unknown; params?: { name?: unknown } } | undefined;
    const method = msg?.method;
    const id = msg?.id ?? null;
    const i = (this.written++ % this.capacity) * SLOTS;
    const ring = this.ring;
    ring[i] = at;
    ring[i + 1] = dir;
    ring[i + 2] = editorId;
    ring[i + 3] = typeof method === 'string' ? label(method) : null;
    ring[i + 4] = method === 'tools/call' && typeof msg!.params?.name === 'string' ? label(msg!.params.name) : null;
    ring[i + 5] = typeof id === 'string' ? label(id) : id;
    ring[i + 6] = bytes ?? Buffer.byteLength(text);
    ring[i + TEXT] = text;
    // A long frame is cut to its preview after the frame has gone on (see `uncut`).
    if (text.length > PREVIEW_CHARS) {
      if (uncut.length === 0) queueMicrotask(cutLongTexts);
      uncut.push(ring, i);
    }
  }

  /** Oldest first; at most `limit` of the newest. */
  list(limit = this.capacity): TrafficEntry[] {
    cutLongTexts();
    const kept = Math.min(this.written, this.capacity);
    const count = Math.max(0, Math.min(limit, kept));
    const entries: TrafficEntry[] = [];
    const r = this.ring;
    for (let n = this.written - count; n < this.written; n++) {
      const i = (n % this.capacity) * SLOTS;
      entries.push({
        at: r[i] as number,
        dir: r[i + 1] as TrafficEntry['dir'],
        editorId: r[i + 2] as string | null,
        method: r[i + 3] as string | null,
        tool: r[i + 4] as string | null,
        id: r[i + 5] as string | number | null,
        bytes: r[i + 6] as number,
        preview: r[i + TEXT] as string,
      });
    }
    return entries;
  }
}

/**
 * Rings and positions of this turn's long texts, in pairs. A relayed frame is written to the
 * socket in the turn it arrives; cutting its text for the log (a copy) waits for a microtask after
 * that, so the round trip does not wait on it, and a 10 MiB frame is not kept past its turn.
 */
const uncut: unknown[] = [];

function cutLongTexts(): void {
  for (let k = 0; k < uncut.length; k += 2) {
    const ring = uncut[k] as unknown[];
    const at = (uncut[k + 1] as number) + TEXT;
    // A no-op for a text already short (the slot written again in the same turn).
    ring[at] = preview(ring[at] as string);
  }
  uncut.length = 0;
}

/** The start of a frame; never ends in half a surrogate pair (it would show as garbage). */
function preview(text: string): string {
  return cut(text, PREVIEW_CHARS);
}

function label(text: string): string {
  return cut(text, LABEL_CHARS);
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  // A slice of a long string keeps the whole string alive in V8; copy it so a log of
  // 10 MiB diffs holds 400 characters each, not 10 MiB.
  return `${Buffer.from(text.slice(0, end), 'utf8').toString('utf8')}…`;
}

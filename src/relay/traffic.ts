// A bounded log of recent frames per session, for the traffic inspector.
import type { TrafficEntry } from '../api/types.ts';
import type { RpcMessage } from '../protocol/jsonrpc.ts';

const PREVIEW_CHARS = 400;
/** Ids, methods and tool names are the peer's to choose: a 40 MiB id must not live on in the log. */
const LABEL_CHARS = 100;

export class TrafficLog {
  private readonly entries: TrafficEntry[] = [];
  private start = 0;

  constructor(private readonly capacity: number) {}

  /**
   * `bytes`: the frame's size when the caller knows it (measuring a 10 MiB string is not free).
   * The entry is made after the frame has gone on (see `later`); `list` sees it at once.
   */
  record(
    dir: TrafficEntry['dir'],
    editorId: string | null,
    text: string,
    message: RpcMessage | null,
    at = Date.now(),
    bytes?: number,
  ): void {
    if (this.capacity <= 0) return;
    if (later.length === 0) queueMicrotask(addLater);
    later.push(this, dir, editorId, text, message, at, bytes);
  }

  add(dir: TrafficEntry['dir'], editorId: string | null, text: string, message: RpcMessage | null, at: number, bytes = Buffer.byteLength(text)): void {
    const msg = message?.msg as { id?: string | number | null; method?: unknown; params?: { name?: unknown } } | undefined;
    const method = typeof msg?.method === 'string' ? label(msg.method) : null;
    const tool = msg?.method === 'tools/call' && typeof msg.params?.name === 'string' ? label(msg.params.name) : null;
    const id = msg?.id ?? null;
    const entry: TrafficEntry = {
      at,
      dir,
      editorId,
      method,
      tool,
      id: typeof id === 'string' ? label(id) : id,
      bytes,
      preview: preview(text),
    };
    if (this.entries.length < this.capacity) this.entries.push(entry);
    else {
      this.entries[this.start] = entry;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** Oldest first; at most `limit` of the newest. */
  list(limit = this.capacity): TrafficEntry[] {
    addLater();
    const ordered = [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
    return ordered.slice(Math.max(0, ordered.length - limit));
  }
}

/**
 * Frames recorded in this turn, seven fields each, flat. A relayed call's frame is written to the
 * socket in the turn it arrives; its log entries are made after that, in a microtask (after the
 * turn's corked frames have gone too), so the round trip does not wait on the log.
 */
const later: unknown[] = [];

function addLater(): void {
  for (let i = 0; i < later.length; i += 7) {
    (later[i] as TrafficLog).add(
      later[i + 1] as TrafficEntry['dir'],
      later[i + 2] as string | null,
      later[i + 3] as string,
      later[i + 4] as RpcMessage | null,
      later[i + 5] as number,
      later[i + 6] as number | undefined,
    );
  }
  later.length = 0;
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

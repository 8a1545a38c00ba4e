// A bounded log of recent frames per session, for the traffic inspector.
import type { TrafficEntry } from '../api/types.ts';
import type { RpcMessage } from '../protocol/jsonrpc.ts';

const PREVIEW_CHARS = 400;

export class TrafficLog {
  private readonly entries: TrafficEntry[] = [];
  private start = 0;

  constructor(private readonly capacity: number) {}

  /** `bytes`: the frame's size when the caller knows it (measuring a 10 MiB string is not free). */
  record(
    dir: TrafficEntry['dir'],
    editorId: string | null,
    text: string,
    message: RpcMessage | null,
    at = Date.now(),
    bytes = Buffer.byteLength(text),
  ): void {
    if (this.capacity <= 0) return;
    const msg = message?.msg as { id?: string | number | null; method?: unknown; params?: { name?: unknown } } | undefined;
    const method = typeof msg?.method === 'string' ? msg.method : null;
    const tool = method === 'tools/call' && typeof msg?.params?.name === 'string' ? msg.params.name : null;
    const entry: TrafficEntry = {
      at,
      dir,
      editorId,
      method,
      tool,
      id: msg?.id ?? null,
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
    const ordered = [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
    return ordered.slice(Math.max(0, ordered.length - limit));
  }
}

/** The start of a frame; never ends in half a surrogate pair (it would show as garbage). */
function preview(text: string): string {
  if (text.length <= PREVIEW_CHARS) return text;
  const cut = /[\uD800-\uDBFF]/.test(text[PREVIEW_CHARS - 1]!) ? PREVIEW_CHARS - 1 : PREVIEW_CHARS;
  // A slice of a long string keeps the whole string alive in V8; copy it so a log of
  // 10 MiB diffs holds 400 characters each, not 10 MiB.
  return `${Buffer.from(text.slice(0, cut), 'utf8').toString('utf8')}…`;
}

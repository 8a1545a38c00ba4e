// Refusals are logged, but a flood of them must not become a flood of log lines: the first
// few in a window are written as they happen, the rest are counted and summed up once the
// window ends ("refused 2345 more connections in the last 10 s: 2300 missing or wrong token").
export interface RefusalLogOptions {
  /** Where lines go; each is prefixed with `source`. */
  log: (message: string) => void;
  /** `door`, `control server`. */
  source: string;
  /** Lines written as they happen per window. */
  burst?: number;
  windowMs?: number;
}

const DEFAULT_BURST = 3;
const DEFAULT_WINDOW_MS = 10_000;

export class RefusalLog {
  private readonly burst: number;
  private readonly windowMs: number;
  private written = 0;
  /** Reason → refusals not written in this window. */
  private readonly held = new Map<string, number>();
  private window: NodeJS.Timeout | null = null;
  private windowStart = 0;

  constructor(private readonly options: RefusalLogOptions) {
    this.burst = options.burst ?? DEFAULT_BURST;
    this.windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  }

  /** One refusal. `reason` is short and stable (it is the key of the summary); `detail` is written only while under the burst. */
  refused(reason: string, detail = ''): void {
    if (this.window === null) {
      this.windowStart = Date.now();
      this.window = setTimeout(() => this.endWindow(), this.windowMs);
      this.window.unref();
    }
    if (this.written < this.burst) {
      this.written += 1;
      this.options.log(`${this.options.source}: refused a connection: ${reason}${detail === '' ? '' : ` (${detail})`}`);
      return;
    }
    this.held.set(reason, (this.held.get(reason) ?? 0) + 1);
  }

  /** Writes what is held and stops the window timer; safe to call twice. */
  close(): void {
    if (this.window !== null) clearTimeout(this.window);
    this.endWindow();
  }

  private endWindow(): void {
    this.window = null;
    this.written = 0;
    if (this.held.size === 0) return;
    const total = [...this.held.values()].reduce((a, b) => a + b, 0);
    const reasons = [...this.held].map(([reason, count]) => `${count} ${reason}`).join(', ');
    this.held.clear();
    const seconds = Math.max(0.1, Math.round((Date.now() - this.windowStart) / 100) / 10);
    this.options.log(`${this.options.source}: refused ${total} more ${total === 1 ? 'connection' : 'connections'} in the last ${seconds} s: ${reasons}`);
  }
}

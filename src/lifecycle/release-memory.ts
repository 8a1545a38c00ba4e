// Gives big diffs' memory back once they are decided and the relay has gone idle. A decided
// 10 MiB diff leaves tens of MiB of garbage behind (the agent's frame, the original, the editor's
// answer), which V8 frees only at its next full collection: during traffic that comes soon, but
// a daemon that has gone quiet may not run one for many seconds (V8's memory reducer waits about
// 8 s, and longer when the heap looks busy), and holds the last burst's frames all that while.
// The collection stops the world (10–30 ms for the core's heap), so it runs only once no frame
// has arrived for the quiet interval and no request is on its way: a second after the last
// diff, agents were still calling (pi-ide's getDiagnostics before every model call), and the
// pause landed in their round trips.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Disposable } from './disposables.ts';

/** Garbage below this is left to V8's own schedule: a full collection costs more than it frees. */
export const RELEASE_MIN_BYTES = 1024 * 1024;
/** How long the relay must have been idle: a burst of traffic pays for one collection, after it. */
export const RELEASE_QUIET_MS = 1000;

/** V8's full collection, run as a task of its own; exposed here without a command-line flag. */
export function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'async' }) => Promise<void>;
  return () => void gc({ type: 'major', execution: 'async' });
}

/** What the relay is doing, as the release needs to know it. */
export interface RelayActivity {
  /** Frames received so far, on every link (only whether it changed counts). */
  frames(): number;
  /** Whether a request is on its way that no person holds (an openDiff under review is not one). */
  busy(): boolean;
}

/** Runs `fn` after `ms`; the default is an unref'd timer (it never keeps the process alive). */
export type After = (ms: number, fn: () => void) => Disposable;

const unrefTimer: After = (ms, fn) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return { dispose: () => clearTimeout(timer) };
};

export class MemoryRelease implements Disposable {
  private garbage = 0;
  private check: Disposable | null = null;
  /** activity.frames() when the current quiet interval began. */
  private framesSeen = 0;

  constructor(
    private readonly collect: () => void,
    private readonly activity: RelayActivity,
    private readonly quietMs = RELEASE_QUIET_MS,
    private readonly after: After = unrefTimer,
  ) {}

  /** `bytes` became garbage (a decided diff's texts): collected once the relay has been idle for quietMs. */
  noteGarbage(bytes: number): void {
    this.garbage += bytes;
    if (this.garbage < RELEASE_MIN_BYTES || this.check) return;
    this.arm();
  }

  private arm(): void {
    this.framesSeen = this.activity.frames();
    this.check = this.after(this.quietMs, () => {
      this.check = null;
      // Traffic during the interval, or a request still on its way: wait a whole interval more.
      if (this.activity.frames() !== this.framesSeen || this.activity.busy()) return this.arm();
      this.garbage = 0;
      this.collect();
    });
  }

  dispose(): void {
    this.check?.dispose();
    this.check = null;
  }
}

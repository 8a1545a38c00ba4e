// Gives big diffs' memory back once they are decided and traffic has stopped. A decided 10 MiB
// diff leaves tens of MiB of garbage behind (the agent's frame, the original, the editor's
// answer), which V8 frees only at its next full collection: during traffic that comes soon, but
// a daemon that has gone quiet may not run one for many seconds (V8's memory reducer waits about
// 8 s, and longer when the heap looks busy), and holds the last burst's frames all that while.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Disposable } from './disposables.ts';

/** Garbage below this is left to V8's own schedule: a full collection costs more than it frees. */
export const RELEASE_MIN_BYTES = 1024 * 1024;
/** How long traffic must have stopped: a burst of big diffs pays for one collection, at its end. */
export const RELEASE_QUIET_MS = 1000;

/** V8's full collection, run as a task of its own (no stall); exposed here without a command-line flag. */
export function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'async' }) => Promise<void>;
  return () => void gc({ type: 'major', execution: 'async' });
}

export class MemoryRelease implements Disposable {
  private garbage = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly collect: () => void,
    private readonly quietMs = RELEASE_QUIET_MS,
  ) {}

  /** `bytes` became garbage (a decided diff's texts): collected once nothing more comes for quietMs. */
  noteGarbage(bytes: number): void {
    this.garbage += bytes;
    if (this.garbage < RELEASE_MIN_BYTES) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.garbage = 0;
      this.collect();
    }, this.quietMs);
    this.timer.unref();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

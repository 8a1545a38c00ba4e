// Decisions a person made that the agent hears a few seconds later (the review's Undo): held here,
// in the hub, so every face shows the same thing meanwhile (the CLI, the badge, the inbox, every
// tab), and a page closed before they are due does not lose them. The first decision still wins:
// a diff decided elsewhere meanwhile drops its waiting one.
import type { Deciding } from '../api/types.ts';
import type { Disposable, DisposableStore } from '../lifecycle/disposables.ts';
import type { Decision } from './inbox.ts';

interface Waiting {
  decision: Decision;
  deciding: Deciding;
  timer: Disposable;
}

export class DecideLater {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly timers: DisposableStore,
    /** Sends a decision whose time has come (or that was asked to go now). */
    private readonly send: (id: string, decision: Decision) => void,
    private readonly now: () => number,
  ) {}

  /** The decision for `id` goes to the agent after `graceMs`, unless taken back; one made earlier for it is replaced. */
  schedule(id: string, decision: Decision, graceMs: number, words: Omit<Deciding, 'dueAt' | 'outcome'>): Deciding {
    this.drop(id);
    const deciding: Deciding = { outcome: decision.outcome, dueAt: this.now() + graceMs, ...words };
    const timer = this.timers.timeout(graceMs, () => this.fire(id));
    this.waiting.set(id, { decision, deciding, timer });
    return deciding;
  }

  /** What is waiting for `id`, if anything. */
  of(id: string): Deciding | undefined {
    return this.waiting.get(id)?.deciding;
  }

  /** Takes decisions back (the diffs wait again); returns the ids that had one. */
  takeBack(ids: readonly string[]): string[] {
    return ids.filter((id) => this.drop(id));
  }

  /** Sends them now; returns the ids that had one. */
  sendNow(ids: readonly string[]): string[] {
    const sent = ids.filter((id) => this.waiting.has(id));
    for (const id of sent) this.fire(id);
    return sent;
  }

  /** Everything still waiting goes now (Patchbay is stopping: the person's decisions are not lost). */
  flush(): void {
    this.sendNow([...this.waiting.keys()]);
  }

  /** The diff was decided another way (in its editor, withdrawn): its waiting decision is dropped. */
  forget(id: string): void {
    this.drop(id);
  }

  private fire(id: string): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    this.drop(id);
    this.send(id, waiting.decision);
  }

  private drop(id: string): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    this.timers.release(waiting.timer);
    this.waiting.delete(id);
    return true;
  }
}

// One hosted session as the host keeps it: the state pi's records build (hosted.ts), the pi
// running it (if any), what Patchbay knows about its pi-ide, and its timers. It outlives its pi:
// stopped or exited, it stays listed and can be resumed on its session file.
import type { PiCommandInfo } from '../api/types.ts';
import { HubError } from '../api/types.ts';
import { DisposableStore, type Disposable } from '../lifecycle/disposables.ts';
import { PiCommandError, PiExitedError, type PiRpcClient } from './client.ts';
import { initialHostedState, nextDialogExpiry, reviewState, type HostedState } from './hosted.ts';
import type { HostedRecord } from './hosted-store.ts';

/** A command failure as faces show it: pi said no (`invalid`), pi is gone (`unavailable`). */
export function hubError(err: unknown): HubError {
  if (err instanceof HubError) return err;
  if (err instanceof PiCommandError) return new HubError(err.message, 'invalid');
  if (err instanceof PiExitedError) return new HubError(err.message, 'unavailable');
  return new HubError(err instanceof Error ? err.message : String(err), 'unavailable');
}

interface ReviewWaiter {
  ready(): void;
  failed(err: Error): void;
}

export class HostedSession {
  state: HostedState = initialHostedState();
  client: PiRpcClient | null = null;
  stopping = false;
  /** Whether pi lists pi-ide's `/ide` command (null until asked, as it starts). */
  hasPiIde: boolean | null = null;
  /** The door session its pi-ide opened, while it is connected. */
  doorSession: string | null = null;
  /** Whether pi-ide's autoconnect is on in its folder (null until read, as it starts). */
  autoconnect: boolean | null = null;
  /** What pi offers through `prompt` (extension commands, templates, skills), as it last said. */
  commands: PiCommandInfo[] = [];
  /** toolCallId → the inbox diff its write or edit went to (kept across restarts). */
  reviews: Record<string, string> = {};
  /** When the current (or last) run of pi began. */
  runStartedAt: number;
  /** Its agent runs (a prompt and what pi did for it), counted from 0 this run of Patchbay; when the last began. */
  turn = 0;
  turnStartedAt = 0;
  endedAt: number | null = null;
  /** Prompts held until its pi-ide reaches the door (or pi exits). */
  readonly reviewWaiters = new Set<ReviewWaiter>();
  /** Its timers (dialog expiry, the pi-ide connection wait); a new set for each run. */
  timers = new DisposableStore();
  private expiry: Disposable | null = null;
  ideTimer: Disposable | null = null;

  constructor(
    readonly id: string,
    readonly cwd: string,
    /** pi's arguments as given at the start (`--model` apart). */
    readonly args: readonly string[],
    /** The model asked for at the start, until pi says which one it uses. */
    readonly startModel: string | null,
    readonly startedAt: number,
  ) {
    this.runStartedAt = startedAt;
  }

  /** A session remembered from an earlier Patchbay: listed as it ended, its pi not running. */
  static fromRecord(record: HostedRecord): HostedSession {
    const session = new HostedSession(record.id, record.cwd, record.args, record.model, record.startedAt);
    session.reviews = { ...record.reviews };
    session.endedAt = record.endedAt;
    session.state = {
      ...session.state,
      status: 'exited',
      exit: record.exit ?? 'stopped when Patchbay stopped',
      model: record.model,
      sessionFile: record.sessionFile,
      sessionName: record.sessionName,
    };
    return session;
  }

  /** What is remembered of it across restarts. */
  record(): HostedRecord {
    const { model, sessionFile, sessionName, exit, status } = this.state;
    return {
      id: this.id,
      cwd: this.cwd,
      args: [...this.args],
      model: model ?? this.startModel,
      sessionFile,
      sessionName,
      startedAt: this.startedAt,
      endedAt: status === 'exited' ? (this.endedAt ?? this.runStartedAt) : null,
      exit: status === 'exited' ? exit : null,
      reviews: this.reviews,
    };
  }

  get running(): boolean {
    return this.state.status !== 'exited';
  }

  get review() {
    return reviewState(this.hasPiIde, this.doorSession);
  }

  /** Ready for a new run of pi: fresh timers, nothing known of its pi-ide yet. */
  beginRun(now: number): void {
    if (this.timers.isDisposed) this.timers = new DisposableStore();
    this.expiry = null;
    this.ideTimer = null;
    this.stopping = false;
    this.hasPiIde = null;
    this.doorSession = null;
    this.autoconnect = null;
    this.client = null;
    this.runStartedAt = now;
    this.endedAt = null;
  }

  /** Re-arms the one timer that drops dialogs pi has resolved by timeout. */
  scheduleExpiry(now: number, onExpire: () => void): void {
    if (this.expiry) this.timers.release(this.expiry);
    this.expiry = null;
    const next = nextDialogExpiry(this.state);
    if (next === null) return;
    this.expiry = this.timers.timeout(Math.max(0, next - now), onExpire);
  }

  clearTimers(): void {
    this.timers.dispose();
    this.expiry = null;
    this.ideTimer = null;
  }

  /** Wakes the prompts held for review: all go once it is no longer connecting; all fail with `err`. */
  settleWaiters(err?: Error): void {
    if (!err && this.review === 'connecting') return;
    for (const waiter of [...this.reviewWaiters]) (err ? waiter.failed(err) : waiter.ready());
    this.reviewWaiters.clear();
  }

  /**
   * Holds a prompt while its pi-ide is not at the door: sent now, its edits would be written
   * unreviewed. Refused (`unavailable`) if pi-ide does not arrive within `waitMs`.
   */
  async untilReviewed(command: string, waitMs: number): Promise<void> {
    if (this.review !== 'connecting' || !this.running || this.client === null) return;
    await new Promise<void>((resolve, reject) => {
      const timer = this.timers.timeout(waitMs, () => {
        this.reviewWaiters.delete(waiter);
        reject(
          new HubError(
            `${command}: pi session ${this.id}: its pi-ide has not reached Patchbay's door within ${Math.round(waitMs / 1000)} s, ` +
              'so its edits would be written without review; the prompt was not sent. ' +
              "Check that pi can see Patchbay's lockfile (patchbay status lists the door), or run /ide in that pi",
            'unavailable',
          ),
        );
      });
      const waiter: ReviewWaiter = {
        ready: () => {
          this.timers.release(timer);
          resolve();
        },
        failed: (err) => {
          this.timers.release(timer);
          reject(hubError(err));
        },
      };
      this.reviewWaiters.add(waiter);
    });
  }

  live(): PiRpcClient {
    if (this.state.status === 'exited') {
      const again = this.state.sessionFile !== null ? ' (resume it to go on: patchbay pi resume, or its Resume button)' : '';
      throw new HubError(`pi session ${this.id} has exited: ${this.state.exit}${again}`, 'unavailable');
    }
    if (!this.client) throw new HubError(`pi session ${this.id} has not started yet`, 'unavailable');
    return this.client;
  }
}

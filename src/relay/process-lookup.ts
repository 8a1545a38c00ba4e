// Which process an agent is (and so its folder, which binds it): looked up until found.
// Under load a lookup can take seconds (200 agents connecting at once share one /proc scan);
// one that answers late is still used, and one that finds nothing is tried again.
import type { ProcessInfo } from '../discovery/peer-process.ts';
import type { Disposable, DisposableStore } from '../lifecycle/disposables.ts';

export interface LookupPlan {
  /** Requests wait at most this long for the first answer before they are routed anyway. */
  firstAnswerMs: number;
  /** The wait before the second attempt; it doubles up to `maxRetryMs`. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** After this long without an answer, Patchbay stops looking and says so. */
  giveUpMs: number;
}

export const LOOKUP_PLAN: LookupPlan = {
  firstAnswerMs: 2000,
  firstRetryMs: 250,
  maxRetryMs: 4000,
  giveUpMs: 30_000,
};

export interface LookupOutcome {
  found(info: ProcessInfo): void;
  /** Given up: `why` says what the last attempt found. */
  gaveUp(why: string): void;
}

/**
 * Starts looking `lookup` up; resolves once the first attempt has answered or `firstAnswerMs`
 * has passed. Every timer is owned by `timers`: disposing it stops the search.
 */
export function lookUpProcess(
  lookup: () => Promise<ProcessInfo | null>,
  timers: DisposableStore,
  outcome: LookupOutcome,
  plan: LookupPlan = LOOKUP_PLAN,
): Promise<void> {
  if (timers.isDisposed) return Promise.resolve();
  let lastProblem = 'no process found';
  let settled = false;
  let retry: Disposable | null = null;
  const giveUp = timers.timeout(plan.giveUpMs, () => {
    settled = true;
    if (retry) timers.release(retry);
    outcome.gaveUp(`no answer within ${plan.giveUpMs} ms (last: ${lastProblem})`);
  });
  const attempt = (nextWaitMs: number, answered: () => void): void => {
    retry = null;
    if (settled || timers.isDisposed) return answered();
    lookup()
      .catch((err: Error) => {
        lastProblem = err.message;
        return null;
      })
      .then((info) => {
        answered();
        if (settled || timers.isDisposed) return;
        if (info) {
          settled = true;
          timers.release(giveUp);
          return outcome.found(info);
        }
        retry = timers.timeout(nextWaitMs, () => attempt(Math.min(nextWaitMs * 2, plan.maxRetryMs), () => {}));
      });
  };
  return new Promise<void>((resolve) => {
    // Whatever comes first: the first answer, its deadline, or the end of the search.
    let timer: NodeJS.Timeout | undefined;
    const firstDeadline = timers.add({
      dispose: () => {
        clearTimeout(timer);
        resolve();
      },
    });
    timer = setTimeout(() => timers.release(firstDeadline), plan.firstAnswerMs);
    timer.unref();
    attempt(plan.firstRetryMs, () => timers.release(firstDeadline));
  });
}

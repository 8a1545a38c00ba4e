// What a cold page asks Patchbay for before React has arrived: the first snapshot, and the diff
// its address names (`#/review/<id>`), both sent the moment the connection is up. The views take
// them once (HubProvider, useDiffDetail); after that, and after any reconnect, they ask as before.
import type { DiffDetail, Snapshot } from '../../../src/api/types.ts';
import { preloadGrammars } from '../review/editor-module.ts';
import type { HubConnection } from './connect.ts';

interface EarlySnapshot {
  answer: Promise<Snapshot>;
  arrived: Snapshot | null;
  newest(): Snapshot | null;
  stop(): void;
}
interface EarlyDiff {
  id: string;
  detail: Promise<DiffDetail>;
  arrived: DiffDetail | null;
}

let snapshot: EarlySnapshot | null = null;
let diff: EarlyDiff | null = null;

/** Starts both calls once `connection` is first connected; `diffId` is the diff the address names, if any. */
export function startEarly(connection: HubConnection, diffId: string | null): void {
  // A snapshot pushed before the view listens is newer than the answer: the view gets the newest.
  let pushed: Snapshot | null = null;
  const unsubscribe = connection.api.subscribe((event) => {
    if (event.type === 'snapshot') pushed = event.snapshot;
  });
  let started = false;
  connection.onState((state) => {
    if (state.kind !== 'connected' || started) return;
    started = true;
    const answer = connection.api.call('snapshot', undefined);
    answer.catch(() => {}); // a failure is the view's to see when it takes the answer
    const early: EarlySnapshot = (snapshot = { answer, arrived: null, newest: () => pushed, stop: unsubscribe });
    answer.then((fresh) => (early.arrived = fresh), () => {});
    if (diffId !== null) {
      const asked: EarlyDiff = (diff = { id: diffId, detail: connection.api.call('diffs.get', { id: diffId }), arrived: null });
      asked.detail.then(
        (detail) => {
          asked.arrived = detail;
          // Its grammar too, not once the list has rendered.
          preloadGrammars([detail.path]);
        },
        () => {},
      );
    }
  });
}

/**
 * The early snapshot, once (null if there is none: then ask). Take it after subscribing to the
 * hub's events: it resolves to the answer, or to a snapshot pushed since, whichever is newer.
 */
export function takeEarlySnapshot(): Promise<Snapshot> | null {
  const taken = snapshot;
  snapshot = null;
  if (taken === null) return null;
  return taken.answer.then(
    (fresh) => {
      taken.stop();
      return taken.newest() ?? fresh;
    },
    (err: unknown) => {
      taken.stop();
      throw err;
    },
  );
}

/**
 * The early snapshot if it has arrived, for a first render that shows it at once (the React
 * chunk often arrives after it). Still taken by takeEarlySnapshot, which keeps watching for a
 * newer one until then.
 */
export function arrivedEarlySnapshot(): Snapshot | null {
  return snapshot === null ? null : (snapshot.newest() ?? snapshot.arrived);
}

/** The early answer for diff `id` if it has arrived (not taken: takeEarlyDiff still gives it once). */
export function arrivedEarlyDiff(id: string): DiffDetail | null {
  return diff !== null && diff.id === id ? diff.arrived : null;
}

/** The early answer for diff `id`, once; null for any other diff. */
export function takeEarlyDiff(id: string): Promise<DiffDetail> | null {
  if (diff === null || diff.id !== id) return null;
  const taken = diff.detail;
  diff = null;
  return taken;
}

// What a cold page asks Patchbay for before React has arrived: the first snapshot, and the diff
// its address names (`#/review/<id>`), both sent the moment the connection is up. The views take
// them once (HubProvider, useDiffDetail); after that, and after any reconnect, they ask as before.
import type { DiffDetail, Snapshot } from '../../../src/api/types.ts';
import { preloadGrammars } from '../review/editor-module.ts';
import type { HubConnection } from './connect.ts';

let snapshot: { answer: Promise<Snapshot>; newest(): Snapshot | null; stop(): void } | null = null;
let diff: { id: string; detail: Promise<DiffDetail> } | null = null;

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
    snapshot = { answer, newest: () => pushed, stop: unsubscribe };
    if (diffId !== null) {
      diff = { id: diffId, detail: connection.api.call('diffs.get', { id: diffId }) };
      // Its grammar too, not once the list has rendered.
      diff.detail.then((detail) => preloadGrammars([detail.path]), () => {});
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

/** The early answer for diff `id`, once; null for any other diff. */
export function takeEarlyDiff(id: string): Promise<DiffDetail> | null {
  if (diff === null || diff.id !== id) return null;
  const taken = diff.detail;
  diff = null;
  return taken;
}

// CodeMirror is most of the bundle and only the diff needs it: the other views load without it.
// It is fetched as soon as the page starts, beside the connection to Patchbay, not when the first
// diff opens (a cold page waited for it, then for the diff's grammar, one after the other), and
// the grammars of the files waiting for review as soon as they are listed.
import { lazy } from 'react';

const load = () => import('./MergeEditor.tsx');

export const MergeEditor = lazy(() => load().then((m) => ({ default: m.MergeEditor })));

/** Starts fetching the diff editor; safe to call often (the module loads once). */
export function preloadDiffEditor(): void {
  void load().catch(() => {
    // The lazy component reports the failure when it is shown.
  });
}

/** Starts fetching the grammars for these files (each loads once). */
export function preloadGrammars(paths: readonly string[]): void {
  if (paths.length === 0) return;
  void import('./languages.ts')
    .then(({ languageFor }) => Promise.all(paths.map((path) => languageFor(path).catch(() => null))))
    .catch(() => {});
}

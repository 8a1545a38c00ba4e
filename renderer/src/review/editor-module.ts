// The diff editor's module (CodeMirror, most of the bundle) and the grammars, fetched once. No React here: the
// page's first script starts the fetch before React has even arrived.
import type * as Editor from './MergeEditor.tsx';

let loading: Promise<typeof Editor> | null = null;
let loaded: typeof Editor | null = null;

/** Starts fetching the diff editor, or joins the fetch under way; a failed one is tried again next time. */
export function loadEditorModule(): Promise<typeof Editor> {
  loading ??= import('./MergeEditor.tsx').then(
    (m) => (loaded = m),
    (err: unknown) => {
      loading = null;
      throw err;
    },
  );
  return loading;
}

/** The module if it has loaded, else null. */
export function loadedEditorModule(): typeof Editor | null {
  return loaded;
}

/** Starts fetching the grammars for these files (each loads once). */
export function preloadGrammars(paths: readonly string[]): void {
  if (paths.length === 0) return;
  void import('./languages.ts')
    .then(({ languageFor }) => Promise.all(paths.map((path) => languageFor(path).catch(() => null))))
    .catch(() => {});
}

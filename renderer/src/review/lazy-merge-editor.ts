// CodeMirror is most of the bundle and only the diff needs it: the other views load without it.
// It is fetched as soon as the page starts (main.tsx), beside the connection to Patchbay, not
// when the first diff opens (a cold page waited for it, then for the diff's grammar, one after
// the other), and the grammars of the files waiting for review as soon as they are listed.
import { createElement, lazy, useState } from 'react';
import type { ComponentProps } from 'react';
import type * as Editor from './MergeEditor.tsx';
import { loadEditorModule, loadedEditorModule } from './editor-module.ts';

const LazyMergeEditor = lazy(() => loadEditorModule().then((m) => ({ default: m.MergeEditor })));

/**
 * The diff editor: the module itself once it is loaded, else a lazy component. A suspended
 * lazy one shows its fallback and React holds the content back ~300 ms after it resolves (its
 * throttle for revealing a Suspense boundary), which a cold page paid though the module had
 * arrived long before. Each instance keeps the kind it started with, so it never remounts.
 */
export function MergeEditor(props: ComponentProps<typeof Editor.MergeEditor>) {
  const [Component] = useState(() => loadedEditorModule()?.MergeEditor ?? LazyMergeEditor);
  return createElement(Component, props);
}

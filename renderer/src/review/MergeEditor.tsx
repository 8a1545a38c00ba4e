// The side-by-side diff: on-disk contents on the left (read-only), the proposal on the right
// (editable). When the old contents are unknown (too large to keep) only the proposal shows.
import { useEffect, useImperativeHandle, useRef } from 'react';
import type { Ref } from 'react';
import { Compartment, EditorState } from '@codemirror/state';
import type { Extension } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, highlightSpecialChars, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { MergeView, goToNextChunk, goToPreviousChunk } from '@codemirror/merge';
import { useDarkScheme } from '../ui/useDarkScheme.ts';

export interface MergeEditorHandle {
  nextChange(): void;
  previousChange(): void;
  /** Puts the proposal back as the agent sent it. */
  resetEdits(): void;
}

interface Props {
  /** null = not known (the file was too large to keep); only the proposal is shown. */
  original: string | null;
  proposed: string;
  /** Called with the right side's text after every edit. */
  onEdit(text: string): void;
  label: string;
  ref?: Ref<MergeEditorHandle>;
}

/** The merge view's own colours (changed lines and words) have a light and a dark set. */
const scheme = (dark: boolean): Extension => EditorView.darkTheme.of(dark);

function baseExtensions(label: string, themeSlot: Compartment, dark: boolean): Extension[] {
  return [
    themeSlot.of(scheme(dark)),
    lineNumbers(),
    highlightSpecialChars(),
    drawSelection(),
    highlightActiveLine(),
    EditorView.contentAttributes.of({ 'aria-label': label }),
  ];
}

export function MergeEditor({ original, proposed, onEdit, label, ref }: Props) {
  const parent = useRef<HTMLDivElement>(null);
  const proposedView = useRef<EditorView | null>(null);
  const views = useRef<EditorView[]>([]);
  const themeSlot = useRef(new Compartment()).current;
  const dark = useDarkScheme();
  const darkRef = useRef(dark);
  darkRef.current = dark;
  const onEditRef = useRef(onEdit);
  onEditRef.current = onEdit;

  useEffect(() => {
    const host = parent.current;
    if (host === null) return;
    const editable: Extension[] = [
      ...baseExtensions(`${label}: proposed contents (editable)`, themeSlot, darkRef.current),
      // Undo/redo (Ctrl/Cmd-Z, Shift-Ctrl/Cmd-Z) and the usual editing keys in the proposal.
      history(),
      keymap.of([...historyKeymap, ...defaultKeymap]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onEditRef.current(update.state.doc.toString());
      }),
    ];
    if (original === null) {
      const view = new EditorView({ parent: host, state: EditorState.create({ doc: proposed, extensions: editable }) });
      proposedView.current = view;
      views.current = [view];
      return () => {
        view.destroy();
        proposedView.current = null;
        views.current = [];
      };
    }
    const merge = new MergeView({
      parent: host,
      a: {
        doc: original,
        extensions: [
          ...baseExtensions(`${label}: contents on disk`, themeSlot, darkRef.current),
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
        ],
      },
      b: { doc: proposed, extensions: editable },
      // Each changed chunk gets a button that takes the on-disk text back into the proposal.
      revertControls: 'a-to-b',
      collapseUnchanged: { margin: 3, minSize: 8 },
    });
    proposedView.current = merge.b;
    views.current = [merge.a, merge.b];
    return () => {
      merge.destroy();
      proposedView.current = null;
      views.current = [];
    };
  }, [original, proposed, label, themeSlot]);

  // Follow the OS theme without rebuilding the editors (that would drop the person's edits).
  useEffect(() => {
    for (const view of views.current) view.dispatch({ effects: themeSlot.reconfigure(scheme(dark)) });
  }, [dark, themeSlot]);

  useImperativeHandle(
    ref,
    () => {
      const run = (command: typeof goToNextChunk): void => {
        const view = proposedView.current;
        if (view !== null) command({ state: view.state, dispatch: (tr) => view.dispatch(tr) });
      };
      return {
        nextChange: () => run(goToNextChunk),
        previousChange: () => run(goToPreviousChunk),
        resetEdits: () => {
          const view = proposedView.current;
          if (view !== null) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: proposed } });
        },
      };
    },
    [proposed],
  );

  return <div className="merge-editor" ref={parent} />;
}

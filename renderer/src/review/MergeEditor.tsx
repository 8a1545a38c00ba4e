// The diff: the file on disk against the proposal, side by side (disk left, read-only;
// proposal right, editable) or unified (one editor, the disk's lines shown above each change).
// Each of the agent's changes can be accepted or rejected on its own (changes-state.ts); the
// proposal editor always holds what Accept sends. When the old contents are unknown (too large
// to keep) only the proposal shows. Read-only for a decided diff from the history.
import { useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Ref } from 'react';
import { Compartment, EditorState, Text } from '@codemirror/state';
import type { Extension } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, highlightSpecialChars, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import type { LanguageSupport } from '@codemirror/language';
import { MergeView, diff, unifiedMergeView } from '@codemirror/merge';
import { changeModel, lineCounts } from '../../../src/review/changes.ts';
import { useDarkScheme } from '../ui/useDarkScheme.ts';
import { applyAndReveal, changeBars, type BarControls } from './change-bars.ts';
import {
  buildChanges,
  choicesText,
  decideChange,
  getReviewChanges,
  lineSeparatorOf,
  mirrorChanges,
  reviewChanges,
  startOver,
  stepChange,
  summarize,
  toText,
} from './changes-state.ts';
import type { ChangeSummary, ReviewChanges } from './changes-state.ts';
import { languageFor, loadedLanguageFor, tokenClasses } from './languages.ts';
import type { Layout } from './layout.ts';
import { REVIEW_DIFF, reviewDiffFor } from './line-diff.ts';
import { deletedLineNumbers } from './deleted-line-numbers.ts';

export interface MergeEditorHandle {
  nextChange(): void;
  previousChange(): void;
  /** Accept (y) or reject (x) the current change. */
  decideCurrent(decision: 'accepted' | 'rejected'): void;
  /** Everything back as the agent proposed it. */
  startOver(): void;
}

/** What the proposal editor holds now, after every change to it. */
export interface EditorReport {
  /** What Accept sends (line endings as in the proposal). */
  text: string;
  summary: ChangeSummary;
  /** The person typed something beyond their per-change choices. */
  handEdited: boolean;
  /** Every change is undone: accepting would write the file as it is. */
  sameAsDisk: boolean;
  /** The changes accepted one by one (0-based). */
  taken: number[];
  /** The changes not decided yet (0-based): still as the agent proposed them. */
  undecided: number[];
  /** false: the texts differ too much to be split into separate changes. */
  precise: boolean;
}

interface Props {
  /** The file's path: names the editors and picks the syntax. */
  path: string;
  /** null = not known (the file was too large to keep); only the proposal is shown. */
  original: string | null;
  proposed: string;
  layout: Layout;
  wrap: boolean;
  /** A decided diff: nothing can be changed. */
  readOnly?: boolean;
  /** Names of the two sides, for screen readers: "contents on disk", "proposed contents (editable)". */
  sideNames: { a: string; b: string };
  onReport?(report: EditorReport): void;
  /** The line (1-based) the cursor is on in the proposal side, as it moves. */
  onCursorLine?(line: number): void;
  /** A written edit (read-only): each change's bar offers "Undo change 2 of 3" until it is undone. */
  undo?: { run(index: number): void; undone: readonly number[]; busy: boolean };
  ref?: Ref<MergeEditorHandle>;
}

/** The merge view's own colours (the collapsed-lines bar) have a light and a dark set. */
const scheme = (dark: boolean): Extension => EditorView.darkTheme.of(dark);
const wrapping = (wrap: boolean): Extension => (wrap ? EditorView.lineWrapping : []);
const COLLAPSE = { margin: 3, minSize: 8 };
const RECOUNT_MS = 150;
/** The merge package draws "⦚" around this, a glyph many fonts lack; styles.css replaces it. */
const PHRASES = EditorState.phrases.of({ '$ unchanged lines': '$ unchanged lines (click to show)' });

/**
 * The language for `path`: undefined while it loads. The editors do not wait for it: a cold page
 * would show nothing while its grammar is fetched and compiled. A grammar already loaded is there
 * on the first render.
 */
function useLanguage(path: string): LanguageSupport | null | undefined {
  const [arrived, setArrived] = useState<{ path: string; support: LanguageSupport | null } | null>(null);
  const loaded = loadedLanguageFor(path);
  useEffect(() => {
    if (loadedLanguageFor(path) !== undefined) return;
    let current = true;
    languageFor(path).then(
      (support) => current && setArrived({ path, support }),
      (err: Error) => {
        console.warn(`syntax highlighting for ${path} is unavailable: ${err.message}`);
        if (current) setArrived({ path, support: null });
      },
    );
    return () => {
      current = false;
    };
  }, [path]);
  if (loaded !== undefined) return loaded;
  return arrived?.path === path ? arrived.support : undefined;
}

/** What the proposal editor holds, to carry over when the layout switches. */
interface Kept {
  /** The texts it was built from: a kept state belongs to that pair only. */
  original: string | null;
  proposed: string;
  doc: Text;
  value: ReviewChanges | null;
}

/**
 * Brings a freshly built proposal editor to what the person had: their text, as the smallest
 * edits (so the merge view's collapsed stretches stay where they were), and their choices.
 */
function restore(view: EditorView, kept: Kept): void {
  const now = view.state.doc;
  const edits = diff(now.toString(), kept.doc.toString(), REVIEW_DIFF).map((c) => ({ from: c.fromA, to: c.toA, insert: kept.doc.slice(c.fromB, c.toB) }));
  view.dispatch({ changes: edits, effects: kept.value === null ? [] : mirrorChanges.of(kept.value), userEvent: 'review.restore' });
}

export function MergeEditor({ path, original, proposed, layout, wrap, readOnly = false, sideNames, onReport, onCursorLine, undo, ref }: Props) {
  const parent = useRef<HTMLDivElement>(null);
  const proposalView = useRef<EditorView | null>(null);
  const views = useRef<EditorView[]>([]);
  const kept = useRef<Kept | null>(null);
  const slots = useRef({ theme: new Compartment(), wrap: new Compartment(), bars: new Compartment(), language: new Compartment() }).current;
  const language = useLanguage(path);
  const dark = useDarkScheme();
  const settings = useRef({ dark, wrap });
  settings.current = { dark, wrap };
  const onReportRef = useRef(onReport);
  onReportRef.current = onReport;
  const onCursorRef = useRef(onCursorLine);
  onCursorRef.current = onCursorLine;
  // The bars' controls, kept the same object while nothing they show changes.
  const undoRef = useRef(undo);
  undoRef.current = undo;
  const undoneKey = undo === undefined ? null : `${undo.undone.join(',')}|${undo.busy}`;
  const controls = useMemo((): BarControls => {
    if (!readOnly) return 'review';
    if (undoneKey === null) return 'none';
    const current = undoRef.current!;
    return { undo: (index) => undoRef.current?.run(index), undone: new Set(current.undone.map((n) => n - 1)), busy: current.busy };
  }, [readOnly, undoneKey]);
  const controlsRef = useRef(controls);
  controlsRef.current = controls;
  /** What the editors were last built or reconfigured with. */
  const built = useRef<{ dark: boolean; wrap: boolean; controls: BarControls | null; language: LanguageSupport | null | undefined }>({
    dark,
    wrap,
    controls: null,
    language: undefined,
  });
  const languageRef = useRef(language);
  languageRef.current = language;
  // The unified view draws each deleted stretch once, with the language the editor has then
  // (@codemirror/merge keeps its DOM): it is built again when the grammar arrives. Side by side,
  // the language is swapped in place.
  const rebuildFor = layout === 'unified' ? language : null;

  // Built before the page paints: a cold page shows the diff in the same frame as its panel.
  useLayoutEffect(() => {
    const host = parent.current;
    if (host === null) return;
    const separator = lineSeparatorOf(proposed);
    const proposal = toText(proposed, separator);
    const disk = original === null ? null : toText(original, separator);
    // Worked out once, from the texts as they came: the bars and the merge view's colours both use it.
    const model = original === null ? null : changeModel(original, proposed);
    const review = disk === null || model === null ? null : buildChanges(disk, proposal, model);
    const diffConfig = model === null || separator !== undefined ? REVIEW_DIFF : reviewDiffFor(model, original!, proposed);
    // Whether the proposal leaves the file as it is (then "every change rejected" is not a change at all).
    const diskIsProposal = original === proposed;
    // The editor gives the proposal back byte for byte (no lone \r to become \n): while the person
    // has neither typed nor rejected a change, what Accept sends is `proposed` itself, not a copy.
    const docKeepsProposal = separator !== undefined || !proposed.includes('\r');
    // Against an empty file every character is new: marking each word would only add noise.
    const wordMarks = disk !== null && disk.length > 0;

    // Typed text changes what Accept writes: the counts follow it, recounted once typing pauses.
    let recount: ReturnType<typeof setTimeout> | undefined;
    // Until the person types, the text is the proposal with their choices: no whole-file comparisons.
    let typed = false;
    const report = (state: EditorState): void => {
      const value = getReviewChanges(state);
      const handEdited = typed && !state.doc.eq(value === null ? proposal : choicesText(value));
      const everyChangeRejected = value !== null && value.changes.length > 0 && value.changes.every((c) => c.decision === 'rejected');
      const sameAsDisk = disk !== null && !diskIsProposal && (handEdited ? state.doc.eq(disk) : everyChangeRejected);
      const asProposed = docKeepsProposal && !typed && (value === null || value.changes.every((c) => c.decision !== 'rejected'));
      const send = (counts?: { added: number; removed: number }): void =>
        onReportRef.current?.({
          text: asProposed ? proposed : state.sliceDoc(),
          summary: { ...summarize(value), ...counts },
          handEdited,
          sameAsDisk,
          taken: value === null ? [] : value.changes.filter((c) => c.decision === 'accepted').map((c) => c.index),
          undecided: value === null ? [] : value.changes.filter((c) => c.decision === 'pending').map((c) => c.index),
          precise: value?.precise ?? true,
        });
      clearTimeout(recount);
      send();
      if (handEdited && disk !== null) recount = setTimeout(() => send(lineCounts(changeModel(disk.toString(), state.doc.toString()).changes)), RECOUNT_MS);
    };
    const common = (name: string): Extension[] => [
      slots.theme.of(scheme(settings.current.dark)),
      slots.wrap.of(wrapping(settings.current.wrap)),
      slots.language.of(languageRef.current ?? []),
      tokenClasses,
      PHRASES,
      lineNumbers(),
      highlightSpecialChars(),
      drawSelection(),
      EditorView.contentAttributes.of({ 'aria-label': `${path}: ${name}` }),
      separator === undefined ? [] : EditorState.lineSeparator.of(separator),
    ];
    let mirror: EditorView | null = null;
    const proposalSide: Extension[] = [
      ...common(sideNames.b),
      review === null ? [] : [reviewChanges(review), slots.bars.of(changeBars('proposal', controlsRef.current))],
      readOnly
        ? [EditorState.readOnly.of(true), EditorView.editable.of(false)]
        : [
            highlightActiveLine(),
            // Undo/redo (Ctrl/Cmd-Z, Shift-Ctrl/Cmd-Z) and the usual editing keys in the proposal;
            // Escape leaves the editor so the review's single-key shortcuts work again.
            history(),
            keymap.of([
              {
                key: 'Escape',
                run: (view) => {
                  view.contentDOM.blur();
                  return true;
                },
              },
              ...historyKeymap,
              ...defaultKeymap,
            ]),
          ],
      EditorView.updateListener.of((update) => {
        if (update.selectionSet || update.docChanged) onCursorRef.current?.(update.state.doc.lineAt(update.state.selection.main.head).number);
        // Review commands swap whole changes; anything else that changes the text is the person's.
        if (update.docChanged && update.transactions.some((tr) => tr.docChanged && !tr.isUserEvent('review'))) typed = true;
        const before = getReviewChanges(update.startState);
        const after = getReviewChanges(update.state);
        if (!update.docChanged && before === after) return;
        kept.current = { original, proposed, doc: update.state.doc, value: after };
        if (after !== null && after !== before) mirror?.dispatch({ effects: mirrorChanges.of(after) });
        report(update.state);
      }),
    ];

    let destroy: () => void;
    if (disk === null || layout === 'unified') {
      const view = new EditorView({
        parent: host,
        state: EditorState.create({
          doc: proposal,
          extensions: [
            proposalSide,
            disk === null
              ? []
              : unifiedMergeView({
                  original: disk,
                  mergeControls: false,
                  collapseUnchanged: COLLAPSE,
                  syntaxHighlightDeletions: true,
                  highlightChanges: wordMarks,
                  diffConfig,
                }),
            disk === null ? [] : deletedLineNumbers(),
          ],
        }),
      });
      proposalView.current = view;
      views.current = [view];
      destroy = () => view.destroy();
    } else {
      const merge = new MergeView({
        parent: host,
        a: {
          doc: disk,
          extensions: [
            ...common(sideNames.a),
            review === null ? [] : [reviewChanges(review), changeBars('disk', 'none')],
            EditorState.readOnly.of(true),
            EditorView.editable.of(false),
          ],
        },
        b: { doc: proposal, extensions: proposalSide },
        collapseUnchanged: COLLAPSE,
        highlightChanges: wordMarks,
        diffConfig,
      });
      mirror = merge.a;
      proposalView.current = merge.b;
      views.current = [merge.a, merge.b];
      destroy = () => merge.destroy();
    }
    built.current = { dark: settings.current.dark, wrap: settings.current.wrap, controls: controlsRef.current, language: languageRef.current };
    const carried = kept.current;
    if (carried !== null && carried.original === original && carried.proposed === proposed) {
      typed = true; // what was carried over may hold the person's typing
      restore(proposalView.current, carried);
    }
    report(proposalView.current.state);
    return () => {
      clearTimeout(recount);
      destroy();
      proposalView.current = null;
      views.current = [];
    };
  }, [original, proposed, layout, path, readOnly, sideNames.a, sideNames.b, rebuildFor, slots]);

  // The grammar, once it has loaded, in the editors already shown.
  useEffect(() => {
    if (language === undefined || built.current.language === language || views.current.length === 0) return;
    built.current.language = language;
    for (const view of views.current) view.dispatch({ effects: slots.language.reconfigure(language ?? []) });
  }, [language, slots]);

  // An undo done, or under way: the bars say so without a rebuild (which would lose the scroll position).
  // Only a change: a big file's editors are not reconfigured for nothing right after they are built.
  useEffect(() => {
    const view = proposalView.current;
    if (view === null || built.current.controls === controls || getReviewChanges(view.state) === null) return;
    built.current.controls = controls;
    view.dispatch({ effects: slots.bars.reconfigure(changeBars('proposal', controls)) });
  }, [controls, slots]);

  // Follow the OS theme and the wrap toggle without rebuilding (that would drop the undo history).
  useEffect(() => {
    if (built.current.dark === dark && built.current.wrap === wrap) return;
    Object.assign(built.current, { dark, wrap });
    for (const view of views.current) view.dispatch({ effects: [slots.theme.reconfigure(scheme(dark)), slots.wrap.reconfigure(wrapping(wrap))] });
  }, [dark, wrap, slots]);

  useImperativeHandle(ref, () => {
    const run = (command: (state: EditorState) => Parameters<typeof applyAndReveal>[1]): void => {
      const view = proposalView.current;
      if (view !== null) applyAndReveal(view, command(view.state));
    };
    return {
      nextChange: () => run((state) => stepChange(state, 1)),
      previousChange: () => run((state) => stepChange(state, -1)),
      decideCurrent: (decision) =>
        run((state) => {
          const current = getReviewChanges(state)?.current ?? null;
          return current === null ? null : decideChange(state, current, decision);
        }),
      startOver: () => run(startOver),
    };
  }, []);

  return <div className="merge-editor" data-layout={layout} ref={parent} />;
}

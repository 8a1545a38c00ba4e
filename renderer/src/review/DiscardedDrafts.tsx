// Text the person typed into a proposal that was then decided elsewhere (in the editor, another
// window, by the agent replacing it): it could not be used, so it is said and kept, in this
// browser's storage, until dismissed.
import { useCallback, useEffect, useRef, useState } from 'react';
import { clockTime } from '../../../src/api/traffic.ts';
import { baseName } from '../../../electron/shared/labels.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { Modal } from '../ui/Modal.tsx';
import { whereDecided } from './decision-text.ts';

const STORAGE_KEY = 'patchbay.review.discarded';
const KEPT = 5;

export interface DiscardedDraft {
  id: string;
  path: string;
  text: string;
  at: number;
}

function load(): DiscardedDraft[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(parsed) ? (parsed as DiscardedDraft[]).filter((d) => typeof d?.text === 'string') : [];
  } catch {
    return [];
  }
}

function save(drafts: DiscardedDraft[]): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify(drafts));
  } catch {
    // Kept for this page only.
  }
}

export interface Drafts {
  discarded: readonly DiscardedDraft[];
  /** The proposal editor's latest text for a pending diff, and whether the person typed it. */
  keep(id: string, path: string, text: string, typed: boolean): void;
  dismiss(id: string): void;
}

/** Watches pending diffs leave: one with typed text that this window did not decide is kept. */
export function useDiscardedDrafts(pendingIds: readonly string[], decidedHere: ReadonlySet<string>): Drafts {
  const [discarded, setDiscarded] = useState<DiscardedDraft[]>(load);
  const latest = useRef(new Map<string, { path: string; text: string }>());
  const ours = useRef(new Set<string>());
  for (const id of decidedHere) ours.current.add(id);
  const previous = useRef(pendingIds);

  const keep = useCallback((id: string, path: string, text: string, typed: boolean) => {
    if (typed) latest.current.set(id, { path, text });
    else latest.current.delete(id);
  }, []);

  useEffect(() => {
    const gone = previous.current.filter((id) => !pendingIds.includes(id));
    previous.current = pendingIds;
    const lost: DiscardedDraft[] = [];
    for (const id of gone) {
      const draft = latest.current.get(id);
      latest.current.delete(id);
      if (draft !== undefined && !ours.current.has(id)) lost.push({ id, ...draft, at: Date.now() });
    }
    if (lost.length === 0) return;
    setDiscarded((before) => {
      const next = [...lost, ...before.filter((d) => !lost.some((l) => l.id === d.id))].slice(0, KEPT);
      save(next);
      return next;
    });
  }, [pendingIds]);

  const dismiss = useCallback((id: string) => {
    setDiscarded((before) => {
      const next = before.filter((d) => d.id !== id);
      save(next);
      return next;
    });
  }, []);
  return { discarded, keep, dismiss };
}

export function DiscardedDrafts({ drafts }: { drafts: Drafts }) {
  const snapshot = useSnapshot();
  const [shown, setShown] = useState<DiscardedDraft | null>(null);
  return (
    <>
      {drafts.discarded.map((d) => {
        const record = snapshot.history.find((r) => r.id === d.id);
        const how = record === undefined ? 'decided elsewhere' : `${record.outcome} ${whereDecided(record, snapshot)}`;
        return (
          <div key={d.id} role="alert" className="decision-notice discarded-draft">
            <span className="notice-text">
              Your typing in {baseName(d.path)} was not used: the edit was {how} before you decided here ({clockTime(d.at).slice(0, 8)}). Your text is
              kept.
            </span>
            <button type="button" onClick={() => setShown(d)}>
              Show your text
            </button>
            <button type="button" className="notice-close" aria-label={`Dismiss the note about ${baseName(d.path)}`} onClick={() => drafts.dismiss(d.id)}>
              ×
            </button>
          </div>
        );
      })}
      {shown !== null && <DraftDialog draft={shown} close={() => setShown(null)} />}
    </>
  );
}

function DraftDialog({ draft, close }: { draft: DiscardedDraft; close(): void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = (): void => {
    navigator.clipboard.writeText(draft.text).then(
      () => setCopied('Copied.'),
      () => setCopied('The browser did not allow copying: select the text and copy it.'),
    );
  };
  return (
    <Modal title={`Your text for ${draft.path}`} className="draft-dialog" cancel={close}>
      <textarea readOnly value={draft.text} aria-label={`Your text for ${draft.path}`} rows={16} data-initial-focus />
      <div className="actions dialog-actions">
        {copied !== null && <span className="meta">{copied}</span>}
        <span className="spacer" />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" className="primary" onClick={close}>
          Close
        </button>
      </div>
    </Modal>
  );
}

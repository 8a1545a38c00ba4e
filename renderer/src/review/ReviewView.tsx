// The review inbox: pending diffs by session on the left, the selected one on the right,
// recent decisions below. Keyboard: see REVIEW_SHORTCUTS (shown in the legend).
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { keyFacts } from '../ui/keyboard.ts';
import { ShortcutLegend } from '../ui/ShortcutLegend.tsx';
import { DiffList } from './DiffList.tsx';
import { DiffPanel } from './DiffPanel.tsx';
import { HistoryList } from './HistoryList.tsx';
import { keepSelection, listedIds, pendingGroups, pendingTotal, step } from './inbox-model.ts';
import { REVIEW_SHORTCUTS, reviewCommandFor } from './shortcuts.ts';
import type { ReviewCommand } from './shortcuts.ts';

interface Props {
  selectedId: string | null;
  select(id: string | null): void;
}

export function ReviewView({ selectedId, select }: Props) {
  const snapshot = useSnapshot();
  const groups = useMemo(() => pendingGroups(snapshot), [snapshot]);
  const ids = useMemo(() => listedIds(groups), [groups]);
  const total = pendingTotal(groups);

  // Keep a selection that makes sense as diffs come and go.
  const previousIds = useRef<string[]>(ids);
  const current = ids.includes(selectedId ?? '') ? selectedId : keepSelection(previousIds.current, ids, selectedId);
  useEffect(() => {
    previousIds.current = ids;
    if (current !== selectedId) select(current);
  }, [ids, current, selectedId, select]);

  useEffect(() => {
    document.title = total > 0 ? `Review (${total}) — Patchbay` : 'Review — Patchbay';
  }, [total]);

  const panelCommands = useRef<((command: ReviewCommand) => void) | null>(null);
  const bindCommands = useCallback((run: ((command: ReviewCommand) => void) | null) => {
    panelCommands.current = run;
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const command = reviewCommandFor(keyFacts(event));
      if (command === null) return;
      event.preventDefault();
      if (command === 'nextDiff' || command === 'previousDiff') select(step(ids, current, command === 'nextDiff' ? 1 : -1));
      else panelCommands.current?.(command);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ids, current, select]);

  const selectedGroup = groups.find((g) => g.diffs.some((d) => d.id === current));
  const selectedDiff = selectedGroup?.diffs.find((d) => d.id === current);

  return (
    <div className="review">
      <aside className="review-sidebar">
        <h1>Review inbox ({total})</h1>
        <DiffList groups={groups} selectedId={current} select={select} />
        <HistoryList history={snapshot.history} />
        <ShortcutLegend shortcuts={REVIEW_SHORTCUTS} />
      </aside>
      {selectedDiff !== undefined && selectedGroup !== undefined ? (
        <DiffPanel key={selectedDiff.id} diff={selectedDiff} group={selectedGroup} bindCommands={bindCommands} />
      ) : (
        <section className="diff-panel empty-panel">
          <p className="empty">No edits are waiting for review.</p>
        </section>
      )}
    </div>
  );
}

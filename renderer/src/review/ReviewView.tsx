// The review inbox: pending diffs by session on the left, the selected one on the right (or a
// decided one opened from the history), recent decisions below the list, a notice after each
// decision. Keyboard: see REVIEW_SHORTCUTS (shown in the legend).
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { keyFacts } from '../ui/keyboard.ts';
import { ShortcutLegend } from '../ui/ShortcutLegend.tsx';
import { DecidedPanel } from './DecidedPanel.tsx';
import { DecisionNotice, useDecisionNotice } from './DecisionNotice.tsx';
import { DiffList } from './DiffList.tsx';
import { DiffPanel } from './DiffPanel.tsx';
import { HistoryList } from './HistoryList.tsx';
import { decidedRouteId, keepSelection, listedIds, pendingGroups, pendingTotal, reviewTarget, step } from './inbox-model.ts';
import { toggled } from './layout.ts';
import { REVIEW_SHORTCUTS, reviewCommandFor } from './shortcuts.ts';
import type { ReviewCommand } from './shortcuts.ts';
import { useReviewLayout } from './useReviewLayout.ts';

interface Props {
  selectedId: string | null;
  select(id: string | null): void;
}

/** The legend: the review's own keys, and how to get them back from inside the editor. */
const LEGEND = [...REVIEW_SHORTCUTS, { key: 'Esc', label: 'Leave the editor' }];

export function ReviewView({ selectedId, select }: Props) {
  const snapshot = useSnapshot();
  const groups = useMemo(() => pendingGroups(snapshot), [snapshot]);
  const ids = useMemo(() => listedIds(groups), [groups]);
  const total = pendingTotal(groups);
  const target = reviewTarget(selectedId);
  const decidedId = target.kind === 'decided' ? target.id : null;

  // Keep a selection that makes sense as diffs come and go (a decided diff stays open).
  const previousIds = useRef<string[]>(ids);
  const pendingId = target.kind === 'pending' ? target.id : null;
  const current =
    decidedId !== null ? null : ids.includes(pendingId ?? '') ? pendingId : keepSelection(previousIds.current, ids, pendingId);
  useEffect(() => {
    previousIds.current = ids;
    if (decidedId === null && current !== selectedId) select(current);
  }, [ids, current, selectedId, decidedId, select]);

  useEffect(() => {
    document.title = total > 0 ? `Review (${total}) — Patchbay` : 'Review — Patchbay';
  }, [total]);

  const area = useRef<HTMLDivElement>(null);
  const layout = useReviewLayout(area);
  const { notice, decidingHere, decidedHere, dismiss } = useDecisionNotice();
  const openDecided = useCallback((id: string) => select(decidedRouteId(id)), [select]);

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
      else if (command === 'toggleLayout') layout.choose(toggled(layout.layout));
      else panelCommands.current?.(command);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ids, current, select, layout]);

  const selectedGroup = groups.find((g) => g.diffs.some((d) => d.id === current));
  const selectedDiff = selectedGroup?.diffs.find((d) => d.id === current);

  return (
    <div className="review">
      <aside className="review-sidebar">
        <h1>Review inbox ({total})</h1>
        <DiffList groups={groups} selectedId={current} select={select} />
        <HistoryList history={snapshot.history} openedId={decidedId} open={openDecided} />
        <ShortcutLegend shortcuts={LEGEND} />
      </aside>
      <div className="review-main" ref={area}>
        <DecisionNotice notice={notice} open={openDecided} dismiss={dismiss} />
        {decidedId !== null ? (
          <DecidedPanel key={decidedId} id={decidedId} layout={layout} bindCommands={bindCommands} close={() => select(null)} />
        ) : selectedDiff !== undefined && selectedGroup !== undefined ? (
          <DiffPanel
            key={selectedDiff.id}
            diff={selectedDiff}
            group={selectedGroup}
            layout={layout}
            bindCommands={bindCommands}
            onDecided={decidedHere}
            onDeciding={decidingHere}
          />
        ) : (
          <section className="diff-panel empty-panel">
            <p className="empty">No edits are waiting for review.</p>
          </section>
        )}
      </div>
    </div>
  );
}

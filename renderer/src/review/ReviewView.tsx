// The review inbox: pending diffs by session on the left (oldest first), the selected one on the
// right (or a decided one opened from the history), recent decisions below the list. A decision
// made here waits a few seconds before the agent hears it (Undo); a notice follows each decision.
// Keyboard: see REVIEW_SHORTCUTS (listed with "?").
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { keyFacts } from '../ui/keyboard.ts';
import { DecidedPanel } from './DecidedPanel.tsx';
import { DecisionNotice, useDecisionNotice } from './DecisionNotice.tsx';
import { DiffList } from './DiffList.tsx';
import { AppliedList } from './AppliedList.tsx';
import { appliedTurns } from './applied-model.ts';
import { DiffPanel } from './DiffPanel.tsx';
import { preloadGrammars } from './editor-module.ts';
import { DiscardedDrafts, useDiscardedDrafts } from './DiscardedDrafts.tsx';
import { HistoryList } from './HistoryList.tsx';
import { decidedRouteId, keepSelection, listedIds, pendingGroups, pendingTotal, reviewTarget, step } from './inbox-model.ts';
import { toggled } from './layout.ts';
import { WaitingDecisions } from './WaitingDecisions.tsx';
import { reviewCommandFor } from './shortcuts.ts';
import type { ReviewCommand } from './shortcuts.ts';
import { useReviewLayout } from './useReviewLayout.ts';
import { useScheduledDecisions } from './useScheduledDecisions.ts';

interface Props {
  selectedId: string | null;
  select(id: string | null): void;
}

export function ReviewView({ selectedId, select }: Props) {
  const snapshot = useSnapshot();
  const allPending = useMemo(() => snapshot.diffs.filter((d) => d.status === 'pending').map((d) => d.id), [snapshot]);
  const decisions = useScheduledDecisions(snapshot.diffs);
  const { waitingIds } = decisions;
  // A diff whose decision waits to be sent is out of the list (Undo brings it back).
  const groups = useMemo(() => pendingGroups({ ...snapshot, diffs: snapshot.diffs.filter((d) => !waitingIds.has(d.id)) }), [snapshot, waitingIds]);
  const ids = useMemo(() => listedIds(groups), [groups]);
  const turns = useMemo(() => appliedTurns(snapshot), [snapshot]);
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

  // The grammars of what waits, fetched while the person looks at the list.
  const waitingPaths = useMemo(
    () => [...new Set([...snapshot.diffs.map((d) => d.path), ...snapshot.history.slice(0, 20).map((r) => r.path)])].join('\n'),
    [snapshot.diffs, snapshot.history],
  );
  useEffect(() => preloadGrammars(waitingPaths === '' ? [] : waitingPaths.split('\n')), [waitingPaths]);

  useEffect(() => {
    document.title = total > 0 ? `Review (${total}) — Patchbay` : 'Review — Patchbay';
  }, [total]);

  const area = useRef<HTMLDivElement>(null);
  const layout = useReviewLayout(area);
  const { notice, dismiss } = useDecisionNotice();
  const drafts = useDiscardedDrafts(allPending, waitingIds);
  const openDecided = useCallback((id: string) => select(decidedRouteId(id)), [select]);
  const undo = useCallback(
    (batch?: string) => {
      const [back] = decisions.undo(batch);
      if (back !== undefined) select(back);
    },
    [decisions, select],
  );

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
      else if (command === 'toggleLayout') layout.choose(toggled(layout.choice, layout.automatic));
      else if (command === 'undo') undo();
      else panelCommands.current?.(command);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ids, current, select, layout, undo]);

  const selectedGroup = groups.find((g) => g.diffs.some((d) => d.id === current));
  const selectedDiff = selectedGroup?.diffs.find((d) => d.id === current);

  return (
    <div className="review">
      <aside className="review-sidebar">
        <h1>Review inbox ({total})</h1>
        <DiffList groups={groups} selectedId={current} select={select} schedule={decisions.schedule} />
        <AppliedList turns={turns} openedId={decidedId} open={openDecided} />
        <HistoryList history={snapshot.history} openedId={decidedId} open={openDecided} />
        <p className="meta keys-hint">
          Keys: a accept · r reject · y/x a change · u undo · <kbd>?</kbd> all keys
        </p>
      </aside>
      <div className="review-main" ref={area}>
        <WaitingDecisions decisions={decisions} undo={undo} />
        <DiscardedDrafts drafts={drafts} />
        <DecisionNotice notice={notice} open={openDecided} dismiss={dismiss} />
        {!layout.measured ? null : decidedId !== null ? (
          <DecidedPanel key={decidedId} id={decidedId} layout={layout} bindCommands={bindCommands} close={() => select(null)} />
        ) : selectedDiff !== undefined && selectedGroup !== undefined ? (
          <DiffPanel
            key={selectedDiff.id}
            diff={selectedDiff}
            group={selectedGroup}
            layout={layout}
            bindCommands={bindCommands}
            schedule={decisions.schedule}
            onDraft={drafts.keep}
          />
        ) : (
          <section className="diff-panel empty-panel">
            <p className="empty">
              {turns.length > 0 ? 'No edits are waiting for a decision. Edits applied at once are listed to review on the left.' : 'No edits are waiting for review.'}
            </p>
          </section>
        )}
      </div>
    </div>
  );
}

// Which review a hosted session's write/edit calls wait on, or how it ended: the pending diff
// is found by its tab name; once decided it leaves the inbox, so the diff each call was seen
// with is remembered to find its decision in the history.
import { useCallback, useRef } from 'react';
import type { DecisionRecord } from '../../../src/api/types.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { pendingDiffFor } from './tool-change.ts';

export type ToolReview = { diffId: string; outcome: 'pending' } | { diffId: string; outcome: DecisionRecord['outcome']; by: DecisionRecord['by'] };

export type ReviewOf = (tool: { name: string; toolCallId: string }) => ToolReview | null;

export function useToolReviews(sessionId: string | null): ReviewOf {
  const { diffs, history } = useSnapshot();
  const seen = useRef(new Map<string, string>());
  return useCallback<ReviewOf>(
    (tool) => {
      const pending = pendingDiffFor(diffs, sessionId, tool);
      if (pending !== null) {
        seen.current.set(tool.toolCallId, pending.id);
        return { diffId: pending.id, outcome: 'pending' };
      }
      const diffId = seen.current.get(tool.toolCallId);
      const record = diffId === undefined ? undefined : history.find((r) => r.id === diffId);
      return record === undefined ? null : { diffId: record.id, outcome: record.outcome, by: record.by };
    },
    [diffs, history, sessionId],
  );
}

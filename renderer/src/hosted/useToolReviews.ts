// Which review a hosted session's write/edit calls wait on, or how it ended. The hub notes on
// each card the inbox diff it went to (`diffId`, kept across restarts); a card seen before that
// note is matched by pi-ide's tab name (`pi-write:<toolCallId>`) among the pending diffs, and
// that match is remembered here, since a decided diff leaves the inbox.
import { useCallback, useRef } from 'react';
import type { DecisionRecord, TranscriptItem } from '../../../src/api/types.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { pendingDiffFor } from './tool-change.ts';

export type ToolReview =
  | { diffId: string; outcome: 'pending' }
  | { diffId: string; outcome: 'decided'; record: DecisionRecord }
  /** Reviewed, but the decision is older than the history Patchbay keeps. */
  | { diffId: string; outcome: 'forgotten' };

export type ReviewOf = (tool: Extract<TranscriptItem, { kind: 'tool' }>) => ToolReview | null;

export function useToolReviews(sessionId: string | null): ReviewOf {
  const { diffs, history } = useSnapshot();
  const seen = useRef(new Map<string, string>());
  return useCallback<ReviewOf>(
    (tool) => {
      const known = tool.diffId ?? seen.current.get(tool.toolCallId);
      const pending = known !== undefined ? diffs.find((d) => d.id === known && d.status === 'pending') : pendingDiffFor(diffs, sessionId, tool);
      if (pending) {
        seen.current.set(tool.toolCallId, pending.id);
        return { diffId: pending.id, outcome: 'pending' };
      }
      if (known === undefined) return null;
      const record = history.find((r) => r.id === known);
      return record === undefined ? { diffId: known, outcome: 'forgotten' } : { diffId: known, outcome: 'decided', record };
    },
    [diffs, history, sessionId],
  );
}

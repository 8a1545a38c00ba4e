// Decisions made here that the agent has not heard yet: each counts down, with Undo and Send now.
import { useNow } from '../ui/useNow.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import type { ScheduledDecisions } from './useScheduledDecisions.ts';

export function WaitingDecisions({ decisions, undo }: { decisions: ScheduledDecisions; undo(batch: string): void }) {
  // Re-renders twice a second while something waits; the time itself is read fresh.
  useNow(decisions.waiting.length > 0 ? 500 : 60_000);
  const now = Date.now();
  return (
    <>
      {decisions.waiting.map((w) => {
        const seconds = Math.max(0, Math.ceil((w.dueAt - now) / 1000));
        return (
          <div key={w.batch} role="status" className="decision-notice waiting-decision">
            <span className="notice-text">
              {w.verb} {w.what} in {seconds} s: the agent hears it then.
            </span>
            <button type="button" onClick={() => undo(w.batch)} aria-keyshortcuts="u">
              Undo
            </button>
            <button type="button" className="link" onClick={() => decisions.sendNow(w.batch)}>
              Send now
            </button>
          </div>
        );
      })}
      {decisions.error !== null && <ErrorText>{decisions.error}</ErrorText>}
    </>
  );
}

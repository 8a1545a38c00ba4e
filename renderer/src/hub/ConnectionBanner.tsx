// Says the connection to Patchbay is gone, that the page is getting it back by itself, and what
// became of the edits that were waiting (the rest of the page is greyed: it is out of date).
import { baseName } from '../../../electron/shared/labels.ts';
import { useHub } from './HubProvider.tsx';
import type { LostEdits } from './HubProvider.tsx';

const files = (paths: readonly string[]): string => paths.map(baseName).join(', ');

/** What became of the edits that were waiting, in words; null when none were. */
export function lostEditsText(lost: LostEdits | null): string | null {
  if (lost === null) return null;
  const parts: string[] = [];
  if (lost.rejectedAtStop.length > 0) {
    parts.push(`Patchbay stopped and rejected the ${lost.rejectedAtStop.length === 1 ? 'edit' : `${lost.rejectedAtStop.length} edits`} that waited (${files(lost.rejectedAtStop)}): the agents were told no, nothing was written.`);
  }
  if (lost.unknown.length > 0) {
    const n = lost.unknown.length;
    parts.push(
      `${n === 1 ? '1 edit was' : `${n} edits were`} waiting (${files(lost.unknown)}) and Patchbay said nothing about ${n === 1 ? 'it' : 'them'}: ` +
        `if it stopped unexpectedly, pi-ide may have written ${n === 1 ? 'it' : 'them'} without review. Its next start lists ${n === 1 ? 'it' : 'them'} in the history.`,
    );
  }
  return parts.length === 0 ? null : parts.join(' ');
}

export function ConnectionBanner() {
  const { connection, retryNow, lostEdits } = useHub();
  if (connection.kind !== 'reconnecting') return null;
  const edits = lostEditsText(lostEdits);
  return (
    <div role="alert" className="banner error">
      Lost the connection to Patchbay: {connection.why}. What this page shows is out of date. Reconnecting by itself…{' '}
      <button type="button" onClick={retryNow}>
        Reconnect now
      </button>
      {connection.lastError !== null && <span className="banner-detail"> Last attempt: {connection.lastError}.</span>}
      {edits !== null && <p className="banner-detail lost-edits">{edits}</p>}
    </div>
  );
}

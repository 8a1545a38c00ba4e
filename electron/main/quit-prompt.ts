// Quitting rejects every pending diff (the agents hear DIFF_REJECTED) and stops the hosted pi
// sessions mid-turn, so ask first.
import { count } from '../shared/labels.ts';

export interface QuitPrompt {
  message: string;
  detail: string;
  buttons: [quit: string, cancel: string];
  defaultId: 1;
  cancelId: 1;
}

/** null = nothing would be lost; quit without asking. `working`: hosted pi sessions in the middle of a turn. */
export function quitPrompt(pending: number, working = 0): QuitPrompt | null {
  if (pending <= 0 && working <= 0) return null;
  const edits = `${count(pending, 'edit')} ${pending === 1 ? 'is' : 'are'} waiting for review`;
  const pis = `${count(working, 'pi session')} ${working === 1 ? 'is' : 'are'} working`;
  const details = [
    ...(pending > 0 ? ['Quitting rejects the edits, and the agents are told so. Review them first to keep them.'] : []),
    ...(working > 0 ? ['The pi sessions stop mid-turn; their conversations are saved, and they can be resumed after.'] : []),
  ];
  return {
    message: pending > 0 && working > 0 ? `${edits}, and ${pis}` : pending > 0 ? edits : pis,
    detail: details.join(' '),
    buttons: [pending > 0 ? 'Reject and quit' : 'Stop them and quit', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
  };
}

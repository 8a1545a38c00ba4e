// Quitting rejects every pending diff (the agents hear DIFF_REJECTED), so ask first.
import { count } from '../shared/labels.ts';

export interface QuitPrompt {
  message: string;
  detail: string;
  buttons: [quit: string, cancel: string];
  defaultId: 1;
  cancelId: 1;
}

/** null = nothing would be lost; quit without asking. */
export function quitPrompt(pending: number): QuitPrompt | null {
  if (pending <= 0) return null;
  return {
    message: `${count(pending, 'edit')} ${pending === 1 ? 'is' : 'are'} waiting for review`,
    detail: 'Quitting rejects them, and the agents are told so. Review them first to keep them.',
    buttons: ['Reject and quit', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
  };
}

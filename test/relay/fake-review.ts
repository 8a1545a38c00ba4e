// A review bridge over fake links, for unit tests of the relay's parts: the inbox is real, the
// session is the one given, and decisions and log lines are recorded.
import type { DecisionRecord } from '../../src/api/types.ts';
import { ReviewBridge, type AgentReply, type AsSent } from '../../src/relay/review-bridge.ts';
import type { RpcLink } from '../../src/relay/rpc-link.ts';
import type { Session } from '../../src/relay/session.ts';
import { Inbox } from '../../src/review/inbox.ts';

export function fakeReview(session: Session, editor: RpcLink, boundEditor: string | null, { now = 1000, pendingBytes = 64 * 1024 * 1024 } = {}) {
  const decided: DecisionRecord[] = [];
  const logs: string[] = [];
  const inbox = new Inbox<AgentReply, AsSent>({ boundEditor: () => boundEditor, route: () => 'editor-and-patchbay', now: () => now });
  const bridge = new ReviewBridge(inbox, {
    pendingBytes,
    session: (id) => (id === session.id ? session : undefined),
    link: async () => editor,
    onDiffAdded: () => {},
    onDiffDecided: (record) => decided.push(record),
    canRecordApplied: () => null,
    recordApplied: async () => {},
    onChange: () => {},
    log: (line) => logs.push(line),
  });
  return { inbox, bridge, decided, logs };
}

// One agent connection to the door, and what Patchbay knows about it.
import type { BindReason, Dialect, SessionModels, SessionView } from '../api/types.ts';
import type { ProcessInfo } from '../discovery/peer-process.ts';
import { toLocal, type PathMapping } from '../remote/paths.ts';
import type { Original } from '../review/read-original.ts';
import type { ReviewNote } from './review-notes.ts';
import type { RpcLink } from './rpc-link.ts';
import type { TrafficLog } from './traffic.ts';

/**
 * The remote a session came through (src/remote/): its agent runs over there, so its process is
 * looked up over there and its paths are the remote's (mapped by `maps`).
 */
export interface RemoteSide {
  readonly name: string;
  readonly maps: readonly PathMapping[];
  /** The agent's process over there (a connection to the forwarded port no other session has). */
  identify(sessionId: string): Promise<ProcessInfo | null>;
  processInfo(pid: number): Promise<ProcessInfo | null>;
  /** A file over there no map covers, as a diff of it is reviewed against (read over the tunnel). */
  readOriginal(path: string, maxBytes: number): Promise<Original>;
  /** The agent port over there a session was matched to (kept for a next core), or null. */
  claimOf(sessionId: string): number | null;
  /** A session a next core took over: its connection over there stays its own. */
  claim(sessionId: string, agentPort: number | null): void;
  /** The session ended: its connection over there is free for another. */
  release(sessionId: string): void;
}

/** Whether Patchbay knows which process (and so which folder) the agent is. */
export type Identity = 'looking' | 'known' | 'unknown';

export interface Session {
  id: string;
  dialect: Dialect;
  link: RpcLink;
  remotePort: number;
  /** The remote it came through, or null for an agent on this machine. */
  remote: RemoteSide | null;
  /** The door it came through (the main one or an editor terminal's). */
  doorPort: number;
  /** Patchbay's request ids on its connection are reserved up to here (rpc-link ID_BLOCK). */
  ids: number;
  /** Its process (for a remote session: the process over there, its cwd a remote path). */
  process: ProcessInfo | null;
  identity: Identity;
  /** Resolves once the first lookup of the agent's process has answered or timed out. */
  firstLookup: Promise<void>;
  /** firstLookup has resolved: a request goes on in the same turn, not one microtask later. */
  lookedUp: boolean;
  clientInfo: { name: string; version: string } | null;
  connectedAt: number;
  lastActiveAt: number;
  /** The person's explicit choice (`null` = Patchbay reviews); undefined = none made. */
  manual: string | null | undefined;
  /**
   * What memory said for this session's key when it was identified. Read once, so moving
   * one session by hand does not drag along another that shares its folder.
   */
  sticky: string | null | undefined;
  editorId: string | null;
  reason: BindReason;
  /** What the rules pick with no choice made (rebalance keeps it current). */
  automatic: string | null;
  traffic: TrafficLog;
  models: SessionModels;
  /** A `listSuggestionModels` asked and not yet answered: one at a time. */
  modelsAsked: Promise<SessionModels> | null;
  /** Agent requests and notifications not yet answered or handled (limited per session). */
  inFlight: number;
  /** What the agent is to read of the person's decisions at its next getDiagnostics (review-notes.ts). */
  reviewNotes: ReviewNote[];
  /**
   * The agent's turn (a prompt and the work for it), counted from 1, and when it began: Claude Code
   * marks each prompt with closeAllDiffTabs; a pi through the door is taken to start one after a pause.
   */
  turn: number;
  turnStartedAt: number;
  closed: boolean;
}

/** Memory key: the same agent kind in the same folder (of the same remote) is "the same session" across restarts. */
export function sessionKey(session: Pick<Session, 'dialect' | 'process' | 'remote'>): string | null {
  if (!session.process?.cwd) return null;
  return session.remote ? `${session.dialect}:${session.remote.name}:${session.process.cwd}` : `${session.dialect}:${session.process.cwd}`;
}

/** The folder on this machine the session is bound by: its cwd, or for a remote session the mapped one (null outside every map). */
export function localCwd(session: Pick<Session, 'process' | 'remote'>): string | null {
  const cwd = session.process?.cwd ?? null;
  if (cwd === null || !session.remote) return cwd;
  return toLocal(session.remote.maps, cwd);
}

export function sessionView(session: Session, pendingDiffs: number): SessionView {
  return {
    id: session.id,
    kind: session.dialect,
    dialect: session.dialect,
    clientName: session.clientInfo?.name ?? null,
    pid: session.process?.pid ?? null,
    cwd: session.process?.cwd ?? null,
    ...(session.remote ? { remote: session.remote.name, localCwd: localCwd(session) } : {}),
    command: session.process?.command ?? null,
    identity: session.identity,
    connectedAt: session.connectedAt,
    lastActiveAt: session.lastActiveAt,
    editorId: session.editorId,
    reason: session.reason,
    automaticEditorId: session.automatic,
    ...(session.manual !== undefined ? { manualEditorId: session.manual } : {}),
    pendingDiffs,
  };
}

/** The agent's next turn begins (Claude Code's closeAllDiffTabs, a pi's pause). */
export function newTurn(session: Session, now: number): void {
  session.turn++;
  session.turnStartedAt = now;
}

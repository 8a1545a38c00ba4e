// One agent connection to the door, and what Patchbay knows about it.
import type { AgentKind, BindReason, Dialect, SessionModels, SessionView } from '../api/types.ts';
import type { RpcLink } from './rpc-link.ts';
import type { TrafficLog } from './traffic.ts';
import type { LiveEditor } from './editor-link.ts';

export interface ProcessInfo {
  pid: number;
  cwd: string | null;
  command: string | null;
  startedAt: number | null;
}

/** One connection from a session to one editor instance. */
export interface Upstream {
  editor: LiveEditor;
  link: RpcLink | null;
  ready: Promise<RpcLink>;
}

export interface Session {
  id: string;
  kind: AgentKind;
  dialect: Dialect;
  link: RpcLink;
  remotePort: number;
  process: ProcessInfo | null;
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
  /** By editor id. */
  upstreams: Map<string, Upstream>;
  traffic: TrafficLog;
  /** Resolves once the agent's process has been looked up (or the lookup gave up). */
  identified: Promise<void>;
  models: SessionModels;
  /** Agent requests not yet answered (limited per session). */
  inFlight: number;
  closed: boolean;
}

/** Memory key: the same agent kind in the same folder is "the same session" across restarts. */
export function sessionKey(session: Pick<Session, 'kind' | 'process'>): string | null {
  return session.process?.cwd ? `${session.kind}:${session.process.cwd}` : null;
}

export function sessionView(session: Session, pendingDiffs: number): SessionView {
  return {
    id: session.id,
    kind: session.kind,
    dialect: session.dialect,
    clientName: session.clientInfo?.name ?? null,
    pid: session.process?.pid ?? null,
    cwd: session.process?.cwd ?? null,
    command: session.process?.command ?? null,
    connectedAt: session.connectedAt,
    lastActiveAt: session.lastActiveAt,
    editorId: session.editorId,
    reason: session.reason,
    ...(session.manual !== undefined ? { manualEditorId: session.manual } : {}),
    pendingDiffs,
  };
}

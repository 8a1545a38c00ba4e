// What a core keeps at the keeper with each connection, so the next core (after a restart or a
// crash, maybe newer code) takes it over as it was: an agent's session with its id, dialect and
// process; a link to an editor with the instance it belongs to. Checked where it comes back in:
// a connection whose record does not fit is closed rather than guessed at.
import { z } from 'zod';
import type { Dialect } from '../api/types.ts';
import type { ProcessInfo } from '../discovery/peer-process.ts';
import type { Session } from './session.ts';

const processSchema = z.object({
  pid: z.number().int().positive(),
  cwd: z.string().nullable(),
  command: z.string().nullable(),
  startedAt: z.number().nullable(),
  ancestors: z.array(z.number().int()).optional(),
});

const agentSchema = z.object({
  kind: z.literal('agent'),
  session: z.string().min(1).max(64),
  dialect: z.enum(['pi', 'claude']),
  /** The subprotocol agreed at the upgrade (Claude Code: `mcp`). */
  protocol: z.string(),
  remotePort: z.number().int(),
  doorPort: z.number().int(),
  process: processSchema.nullable(),
  clientInfo: z.object({ name: z.string(), version: z.string() }).nullable(),
  connectedAt: z.number(),
  /** The person's choice of editor (null: Patchbay reviews); absent: none made. */
  manual: z.string().nullable().optional(),
  /** Patchbay's request ids on this connection start here (rpc-link ID_BLOCK). */
  ids: z.number().int().min(0),
  /** It came through a remote's tunnel (src/remote/): which, and its agent's port over there. */
  remote: z.object({ name: z.string().min(1).max(256), agentPort: z.number().int().nullable() }).optional(),
});

const editorSchema = z.object({
  kind: z.literal('editor'),
  editor: z.string(),
  port: z.number().int(),
  pid: z.number().int(),
  dialect: z.enum(['pi', 'claude']),
  protocol: z.string(),
  ids: z.number().int().min(0),
});

export const connMetaSchema = z.discriminatedUnion('kind', [agentSchema, editorSchema]);

export type AgentMeta = z.infer<typeof agentSchema>;
export type EditorMeta = z.infer<typeof editorSchema>;
export type ConnMeta = z.infer<typeof connMetaSchema>;

export function agentMeta(session: Session, ids: number): AgentMeta {
  return {
    kind: 'agent',
    session: session.id,
    dialect: session.dialect,
    protocol: session.link.ws.protocol,
    remotePort: session.remotePort,
    doorPort: session.doorPort,
    process: session.process,
    clientInfo: session.clientInfo,
    connectedAt: session.connectedAt,
    ...(session.manual !== undefined ? { manual: session.manual } : {}),
    ids,
    ...(session.remote ? { remote: { name: session.remote.name, agentPort: session.remote.claimOf(session.id) } } : {}),
  };
}

export function editorMeta(editor: { id: string; port: number; pid: number; dialect: Dialect }, protocol: string, ids: number): EditorMeta {
  return { kind: 'editor', editor: editor.id, port: editor.port, pid: editor.pid, dialect: editor.dialect, protocol, ids };
}

/** The record, or why it cannot be used. */
export function readConnMeta(value: unknown): ConnMeta | string {
  const parsed = connMetaSchema.safeParse(value);
  return parsed.success ? parsed.data : (parsed.error.issues[0]?.message ?? 'not a connection record');
}

export type { ProcessInfo };

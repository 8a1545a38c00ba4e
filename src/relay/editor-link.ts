// A connection from Patchbay to one editor instance, initialized like an agent would.
import type { CoreHost } from '../core/host.ts';
import type { EditorInstance } from '../protocol/lockfile.ts';
import { MCP_PROTOCOL_VERSION, type ToolSpec } from '../protocol/mcp.ts';
import { connectEditor } from '../transport/editor-socket.ts';
import { adoptWebSocket } from '../core/ws-handover.ts';
import type { ParkedLink } from './editor-connection.ts';
import { RpcLink, type LinkHandlers } from './rpc-link.ts';

/** A live editor instance as the relay needs it (discovery supplies these). */
export type LiveEditor = EditorInstance;

export const HANDSHAKE_TIMEOUT_MS = 5000;

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Connects and sends `initialize` (plus `notifications/initialized` for Claude-dialect editors). */
export async function openEditorLink(
  editor: LiveEditor,
  clientInfo: { name: string; version: string },
  maxPayload: number,
  handlers: LinkHandlers,
  host?: CoreHost,
): Promise<RpcLink> {
  const { ws, connId } = await connectEditor(editor, maxPayload, HANDSHAKE_TIMEOUT_MS, host);
  const link = new RpcLink(ws, `editor ${editor.ideName} (port ${editor.port})`, handlers, false);
  link.connId = connId;
  try {
    const init = link.request('initialize', { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo });
    const { msg: response } = await withTimeout(init.response, HANDSHAKE_TIMEOUT_MS, link.label);
    if (response.error) throw new Error(`${link.label}: initialize failed: ${response.error.message}`);
    if (editor.dialect === 'claude') void link.notify('notifications/initialized');
    return link;
  } catch (err) {
    link.close();
    throw err;
  }
}

/** A link an earlier core opened and initialized, taken over as it is (no second `initialize`). */
export function adoptEditorLink(editor: LiveEditor, parked: ParkedLink, maxPayload: number, handlers: LinkHandlers): RpcLink {
  const ws = adoptWebSocket(parked.socket, parked.head, { role: 'client', protocol: parked.meta.protocol, maxPayload });
  const link = new RpcLink(ws, `editor ${editor.ideName} (port ${editor.port})`, handlers, false);
  link.connId = parked.connId;
  link.startIdsAt(parked.meta.ids);
  return link;
}

/** The editor's tool list; an editor that cannot list tools gets an empty one. */
export async function fetchTools(link: RpcLink): Promise<ToolSpec[]> {
  const call = link.request('tools/list', {});
  const { msg: response } = await withTimeout(call.response, HANDSHAKE_TIMEOUT_MS, link.label);
  const tools = (response.result as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) ? (tools.filter((t) => typeof t?.name === 'string') as ToolSpec[]) : [];
}

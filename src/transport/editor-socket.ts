// A client connection to an editor's MCP server, authenticated in the editor's dialect. The TCP
// connection is the host's (core/host.ts): under the daemon the keeper opens it and keeps a
// copy, so the link outlives the core that runs WebSocket over it.
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import type { Dialect } from '../api/types.ts';
import { LocalHost, type CoreHost } from '../core/host.ts';
import { editorHandshake } from '../protocol/dialect.ts';

export interface EditorEndpoint {
  port: number;
  /** Null: the editor has none (claude-code-ide.el), so none is sent. */
  authToken: string | null;
  dialect: Dialect;
}

export interface EditorSocket {
  ws: WebSocket;
  /** The host's name for the connection. */
  connId: string;
}

/**
 * A client must mask its frames (RFC 6455 §5.3), with any key: the key exists so that a script
 * cannot put bytes of its choosing before a proxy (§10.3), and between Patchbay and an editor on
 * 127.0.0.1 there is none. With the zero key ws sends the bytes as they are instead of copying
 * and masking every frame (ws masks in JS: ~48 ms of CPU for a 10 MiB openDiff here); the editor
 * unmasks as ever (XOR with zeros).
 */
function zeroMask(mask: Buffer): void {
  mask.fill(0);
}

export async function connectEditor(endpoint: EditorEndpoint, maxPayload: number, timeoutMs = 5000, host: CoreHost = new LocalHost()): Promise<EditorSocket> {
  let opened: { id: string; socket: Socket };
  try {
    opened = await host.connect('127.0.0.1', endpoint.port);
  } catch (err) {
    throw new Error(`editor on port ${endpoint.port}: ${(err as Error).message}`);
  }
  const { id, socket } = opened;
  // However the link ends, the host's copy goes with it (else the editor never sees it end).
  socket.once('close', () => host.drop(id));
  return new Promise((resolve, reject) => {
    const { protocols, headers } = editorHandshake({ token: endpoint.authToken, dialect: endpoint.dialect });
    const ws = new WebSocket(`ws://127.0.0.1:${endpoint.port}`, protocols, {
      headers,
      maxPayload,
      perMessageDeflate: false,
      handshakeTimeout: timeoutMs,
      createConnection: () => socket,
      generateMask: zeroMask,
    });
    const fail = (err: Error): void => {
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      socket.destroy();
      reject(new Error(`editor on port ${endpoint.port}: ${err.message}`));
    };
    ws.once('open', () => {
      ws.off('error', fail);
      ws.off('unexpected-response', onResponse);
      resolve({ ws, connId: id });
    });
    const onResponse = (_req: unknown, res: { statusCode?: number }): void =>
      fail(new Error(`upgrade refused with HTTP ${res.statusCode ?? '?'}`));
    ws.once('unexpected-response', onResponse);
    ws.once('error', fail);
  });
}

// A client connection to an editor's MCP server, authenticated in the editor's dialect.
import WebSocket from 'ws';
import type { Dialect } from '../api/types.ts';
import { editorHandshake } from '../protocol/dialect.ts';

export interface EditorEndpoint {
  port: number;
  /** Null: the editor has none (claude-code-ide.el), so none is sent. */
  authToken: string | null;
  dialect: Dialect;
}

export function connectEditor(endpoint: EditorEndpoint, maxPayload: number, timeoutMs = 5000): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const { protocols, headers } = editorHandshake({ token: endpoint.authToken, dialect: endpoint.dialect });
    const ws = new WebSocket(`ws://127.0.0.1:${endpoint.port}`, protocols, {
      headers,
      maxPayload,
      perMessageDeflate: false,
      handshakeTimeout: timeoutMs,
    });
    const fail = (err: Error): void => {
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      reject(new Error(`editor on port ${endpoint.port}: ${err.message}`));
    };
    ws.once('open', () => {
      ws.off('error', fail);
      ws.off('unexpected-response', onResponse);
      resolve(ws);
    });
    const onResponse = (_req: unknown, res: { statusCode?: number }): void =>
      fail(new Error(`upgrade refused with HTTP ${res.statusCode ?? '?'}`));
    ws.once('unexpected-response', onResponse);
    ws.once('error', fail);
  });
}

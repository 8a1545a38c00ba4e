// Small clients for poking the control server the way the CLI and a browser would.
import { request } from 'node:http';
import { WebSocket } from 'ws';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function httpRequest(
  port: number,
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a WebSocket, or reports the HTTP status that refused the upgrade. */
export function openSocket(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ok: true; ws: WebSocket } | { ok: false; status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.once('open', () => resolve({ ok: true, ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ ok: false, status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.on('error', (err) => reject(err)); // after a refusal, terminate() reports here too: too late to matter
  });
}

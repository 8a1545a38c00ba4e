// Small clients for poking the control server the way the CLI and a browser would.
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { CREDENTIAL_PROTOCOL_PREFIX, BROWSER_PROTOCOL } from '../../src/web/browser-protocol.ts';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function httpRequest(
  port: number,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** POST /session as the page does: JSON, from `origin`. */
export function sessionRequest(port: number, origin: string | undefined, body: unknown): Promise<HttpAnswer> {
  return httpRequest(port, '/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) },
    body: JSON.stringify(body),
  });
}

/** The subprotocols a signed-in page offers. */
export function browserProtocols(credential: string): string[] {
  return [BROWSER_PROTOCOL, `${CREDENTIAL_PROTOCOL_PREFIX}${credential}`];
}

/** Opens a WebSocket, or reports the HTTP status that refused the upgrade. */
export function openSocket(
  url: string,
  headers: Record<string, string> = {},
  protocols: string[] = [],
): Promise<{ ok: true; ws: WebSocket } | { ok: false; status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers, perMessageDeflate: false });
    ws.once('open', () => resolve({ ok: true, ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ ok: false, status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.on('error', (err) => reject(err)); // after a refusal, terminate() reports here too: too late to matter
  });
}

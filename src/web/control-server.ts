// The headless face: a loopback HTTP server that carries HubApi over a WebSocket (`/api`) and
// serves the built renderer. The CLI proves itself with the bearer token from control.json;
// a browser with a session cookie it got in exchange for a one-time token, from our own origin.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import type { HubApi, ParamsOf } from '../api/types.ts';
import { decodeRequest, encodeError, encodeEvent, encodeResult, toWireError, type WireRequest } from '../api/wire.ts';
import { newToken, tokensEqual } from '../transport/tokens.ts';
import { BrowserSessions, OneTimeTokens, bearerToken, cookieValue } from './auth.ts';
import { removeControlFile, writeControlFile } from './control-file.ts';
import { expiredLinkPage, notBuiltPage, signInPage } from './pages.ts';
import { contentTypeFor, lookupStatic } from './static-files.ts';

export interface ControlServerOptions {
  hub: HubApi;
  /** Loopback only. */
  host: string;
  /** 0 = any free port. */
  port: number;
  /** Where control.json goes. */
  home: string;
  /** The built renderer; default `out/renderer` in the repository. */
  staticDir?: string;
  version: string;
  /** Diff contents travel whole over the control socket. */
  maxFrameBytes?: number;
  /** Lifetime of a one-time browser token. */
  openTokenTtlMs?: number;
  log?: (message: string) => void;
  now?: () => number;
}

export interface ControlServer {
  readonly port: number;
  /** `http://<host>:<port>`, without a trailing slash. */
  readonly url: string;
  /** A token for `GET /?t=<token>`: works once, within the TTL. */
  mintOpenToken(): string;
  /** Closes every client and removes control.json; safe to call twice. */
  close(): Promise<void>;
}

export const API_PATH = '/api';
export const OPEN_TOKEN_PATH = '/open-token';
const DEFAULT_STATIC_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));
const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;
const DEFAULT_OPEN_TOKEN_TTL_MS = 2 * 60 * 1000;
/** How long clients get to answer our close frame before their sockets are cut. */
const CLOSE_GRACE_MS = 500;

function contentSecurityPolicy(wsOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // CodeMirror injects its theme as style elements.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${wsOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function refuseUpgrade(socket: Socket, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const { hub, home, version } = options;
  const staticDir = options.staticDir ?? DEFAULT_STATIC_DIR;
  const log = options.log ?? ((message: string) => console.error(`patchbay: ${message}`));
  const token = newToken();
  const openTokens = new OneTimeTokens(options.openTokenTtlMs ?? DEFAULT_OPEN_TOKEN_TTL_MS, options.now ?? Date.now);
  const sessions = new BrowserSessions();
  const clients = new Set<WebSocket>();

  // Filled in once listening; requests cannot arrive before that.
  let port = 0;
  let hostHeader = '';
  let origin = '';
  let cookieName = '';
  let securityHeaders: Record<string, string> = {};

  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
    res.writeHead(status, { ...securityHeaders, 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
    res.end(body);
  };
  const sendPage = (res: ServerResponse, status: number, html: string, extra: Record<string, string> = {}) =>
    send(res, status, 'text/html; charset=utf-8', html, extra);
  const sendText = (res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}) =>
    send(res, status, 'text/plain; charset=utf-8', `${text}\n`, extra);

  const hasSession = (req: IncomingMessage) => sessions.has(cookieValue(req.headers.cookie, cookieName));
  const bearerValid = (req: IncomingMessage) => {
    const given = bearerToken(req.headers.authorization);
    return given !== null && tokensEqual(given, token);
  };

  async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (!hasSession(req)) return sendPage(res, 401, signInPage());
    const found = await lookupStatic(staticDir, pathname);
    if (found.kind === 'forbidden') return sendText(res, 403, 'Forbidden');
    if (found.kind === 'not-found') {
      const isRoot = pathname === '/' || pathname === '/index.html';
      return isRoot ? sendPage(res, 200, notBuiltPage(version)) : sendText(res, 404, 'Not found');
    }
    send(res, 200, contentTypeFor(found.path), await readFile(found.path));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A page on another site that resolves its own name to 127.0.0.1 still sends its own Host.
    if (req.headers.host !== hostHeader) return sendText(res, 403, `Forbidden: Host must be ${hostHeader}`);
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === OPEN_TOKEN_PATH) {
      if (req.method !== 'POST') return sendText(res, 405, 'Method not allowed', { allow: 'POST' });
      if (req.headers.origin !== undefined) return sendText(res, 403, 'Forbidden: browsers cannot mint tokens');
      if (!bearerValid(req)) return sendText(res, 401, 'Unauthorized');
      const body = JSON.stringify({ url: `${origin}/?t=${openTokens.mint()}` });
      return send(res, 200, 'application/json; charset=utf-8', body);
    }
    if (req.method !== 'GET') return sendText(res, 405, 'Method not allowed', { allow: 'GET' });
    if (url.pathname === API_PATH) return sendText(res, 426, 'Upgrade required: this is a WebSocket endpoint', { upgrade: 'websocket' });
    const oneTime = url.searchParams.get('t');
    if (oneTime !== null) {
      if (!openTokens.consume(oneTime)) return sendPage(res, 403, expiredLinkPage());
      const cookie = `${cookieName}=${sessions.open()}; Path=/; HttpOnly; SameSite=Strict`;
      return sendText(res, 303, 'See /', { location: '/', 'set-cookie': cookie });
    }
    await serveStatic(req, res, url.pathname);
  }

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    perMessageDeflate: false,
  });

  function onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', (err) => log(`control socket from port ${socket.remotePort}: ${err.message}`));
    if (req.headers.host !== hostHeader) return refuseUpgrade(socket, 403, 'Forbidden');
    if (new URL(req.url ?? '/', origin).pathname !== API_PATH) return refuseUpgrade(socket, 404, 'Not Found');
    const requestOrigin = req.headers.origin;
    if (requestOrigin !== undefined && requestOrigin !== origin) return refuseUpgrade(socket, 403, 'Forbidden');
    // A cookie counts only with our own Origin: browsers always send one on a WebSocket.
    const allowed = bearerValid(req) || (requestOrigin === origin && hasSession(req));
    if (!allowed) return refuseUpgrade(socket, 401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => serveClient(ws, socket.remotePort ?? 0));
  }

  function serveClient(ws: WebSocket, remotePort: number): void {
    clients.add(ws);
    const reply = (text: string) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(text);
    };
    const unsubscribe = hub.subscribe((event) => reply(encodeEvent(event)));
    const run = async ({ id, method, params }: WireRequest) => {
      try {
        reply(encodeResult(id, await hub.call(method, params as ParamsOf<typeof method>)));
      } catch (err) {
        const error = toWireError(err);
        if (error.code === 'internal') log(`control command ${method} failed: ${(err as Error).stack ?? error.message}`);
        reply(encodeError(id, error));
      }
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.close(1003, 'text frames only');
        return;
      }
      const decoded = decodeRequest(data.toString());
      if (decoded.ok) void run(decoded.request);
      else if (decoded.id !== null) reply(encodeError(decoded.id, decoded.error));
      else ws.close(1008, decoded.error.message.slice(0, 120));
    });
    ws.on('error', (err) => log(`control client on port ${remotePort}: ${err.message}`));
    ws.on('close', () => {
      unsubscribe();
      clients.delete(ws);
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      log(`control server: ${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) sendText(res, 500, 'Internal error');
      else res.destroy(err);
    });
  });
  server.on('upgrade', onUpgrade);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  hostHeader = `${options.host}:${port}`;
  origin = `http://${hostHeader}`;
  cookieName = `patchbay_session_${port}`;
  securityHeaders = {
    'content-security-policy': contentSecurityPolicy(`ws://${hostHeader}`),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  };

  let closing: Promise<void> | null = null;
  async function shutdown(): Promise<void> {
    await removeControlFile(home, token);
    server.close();
    server.closeAllConnections();
    const closed = [...clients].map((ws) => new Promise((resolve) => ws.once('close', resolve)));
    for (const ws of clients) ws.close(1001, 'Patchbay is stopping');
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(grace);
    for (const ws of clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }

  try {
    await writeControlFile(home, { host: options.host, port, pid: process.pid, token, version });
  } catch (err) {
    server.close();
    throw new Error(`control server: cannot write ${home}/control.json: ${(err as Error).message}`);
  }

  return {
    port,
    url: origin,
    mintOpenToken: () => openTokens.mint(),
    close: () => (closing ??= shutdown()),
  };
}

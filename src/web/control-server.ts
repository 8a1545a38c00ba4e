// The headless face: a loopback HTTP server that carries HubApi over a WebSocket (`/api`) and
// serves the built renderer (static files carry no secrets: anyone may load them). The CLI
// proves itself with the bearer token from control.json; a browser page with a one-time ticket
// it got with its sign-in or renewal (see browser-protocol.ts), from our own origin exactly.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import type { HubApi, ParamsOf } from '../api/types.ts';
import { LocalHost, type CoreHost, type Listener } from '../core/host.ts';
import { WRITTEN_AS_PROPOSED, decodeRequest, encodeError, encodeEvent, encodeResult, toWireError, type WireRequest } from '../api/wire.ts';
import { isObject } from '../api/json.ts';
import { LazyText, encodeJsonPieces, holdsLazyText } from '../protocol/lazy-json.ts';
import { sameBytes } from '../review/held-text.ts';
import { ConnectionGate, isHangUp, refuse } from '../transport/connection-gate.ts';
import { RefusalLog } from '../transport/refusal-log.ts';
import { newToken, tokensEqual } from '../transport/tokens.ts';
import { BrowserSessions, OneTimeTokens, bearerToken, type SessionPolicy } from './auth.ts';
import {
  API_PATH,
  BROWSER_PROTOCOL,
  SESSION_PATH,
  SIGNED_OUT_CLOSE_CODE,
  SIGNIN_PARAM,
  STALE_CHALLENGE_STATUS,
  ticketFromProtocols,
  type ChallengeAnswer,
  type SessionAnswer,
} from './browser-protocol.ts';
import { loadBrowserState, persistNewKey, saveBrowserState } from './browser-state.ts';
import { removeControlFile, writeControlFile } from './control-file.ts';
import { OPEN_PAGE_PATH, OPEN_TOKEN_PATH, REVOKE_PATH } from './control-paths.ts';
import { notBuiltPage } from './pages.ts';
import { SignInPages } from './sign-in-pages.ts';
import { contentTypeFor, lookupStatic } from './static-files.ts';

export { API_PATH, OPEN_PAGE_PATH, OPEN_TOKEN_PATH, REVOKE_PATH } from './control-paths.ts';

export interface ControlServerOptions {
  hub: HubApi;
  /** Loopback only. */
  host: string;
  /**
   * 0 = the port remembered from the last run when it is free (open tabs keep their origin);
   * when another program holds it, any port, and every browser is signed out (saying why).
   */
  port: number;
  /** Where control.json and browser.json go. */
  home: string;
  /** The built renderer; default `out/renderer` in the repository. */
  staticDir?: string;
  version: string;
  /** Diff contents travel whole over the control socket. */
  maxFrameBytes?: number;
  /** Lifetime of a one-time sign-in link. */
  openTokenTtlMs?: number;
  /** When browser sign-ins end. */
  sessionPolicy?: SessionPolicy;
  /** Connections waiting for their upgrade or their one HTTP answer (see ConnectionGate). */
  maxPending?: number;
  upgradeDeadlineMs?: number;
  log?: (message: string) => void;
  now?: () => number;
  /** Who listens (default: this process); under the daemon the keeper, which outlives the core. */
  coreHost?: CoreHost;
  /** The token the CLI proves itself with; default a new one (a restarted core keeps its keeper's). */
  token?: string;
  /** control.json's pid: the process the person would stop (default this one). */
  pid?: number;
}

export interface RevokeReport {
  /** Open pages closed. */
  closed: number;
  /** Why the new key is not on disk (it is in force anyway), or null when it is. */
  unsaved: string | null;
}

export interface ControlServer {
  readonly port: number;
  /** `http://<host>:<port>`, without a trailing slash. */
  readonly url: string;
  /** A sign-in link `<url>/#signin=<secret>`: works once, within the TTL. */
  mintSignInUrl(): string;
  /** A page only the user can read that forwards to a fresh sign-in link (see sign-in-pages.ts); resolves with its path. */
  writeSignInPage(): Promise<string>;
  /** Ends every browser sign-in (a new signing key) and closes their sockets. */
  revokeSessions(): Promise<RevokeReport>;
  /** Closes every client and removes control.json; safe to call twice. */
  close(): Promise<void>;
}

const DEFAULT_STATIC_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));
const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;
const DEFAULT_OPEN_TOKEN_TTL_MS = 2 * 60 * 1000;
/** A renewal challenge or a socket ticket is used within moments of being issued. */
const SHORT_TTL_MS = 30 * 1000;
const HOUR_MS = 60 * 60 * 1000;
export const DEFAULT_SESSION_POLICY: SessionPolicy = { idleMs: 8 * HOUR_MS, maxMs: 7 * 24 * HOUR_MS };
const DEFAULT_MAX_PENDING = 64;
const DEFAULT_UPGRADE_DEADLINE_MS = 5000;
/** How often open browser sockets are checked against their sign-in's absolute end. */
const SWEEP_MS = 60 * 1000;
/** A sign-in or renewal request is a few dozen bytes. */
const MAX_SESSION_BODY_BYTES = 4096;
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

/** Who is on the other end of an `/api` socket. */
type Client = { kind: 'cli' } | { kind: 'browser'; endsAt: number };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new HttpError(413, `Request body over ${maxBytes} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A decided diff whose written text is its proposal sends that text once (WRITTEN_AS_PROPOSED). */
function writtenOnce(detail: unknown): unknown {
  if (!isObject(detail)) return detail;
  const { newContents: proposed, finalContents: written } = detail;
  const same =
    (typeof written === 'string' && written === proposed) ||
    (written instanceof LazyText && (written === proposed || (proposed instanceof LazyText && sameBytes(written, proposed))));
  return same ? { ...detail, finalContents: WRITTEN_AS_PROPOSED } : detail;
}

export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const { hub, home, version } = options;
  const staticDir = options.staticDir ?? DEFAULT_STATIC_DIR;
  const log = options.log ?? ((message: string) => console.error(`patchbay: ${message}`));
  const now = options.now ?? Date.now;
  const policy = options.sessionPolicy ?? DEFAULT_SESSION_POLICY;
  const token = options.token ?? newToken();
  const openTokenTtlMs = options.openTokenTtlMs ?? DEFAULT_OPEN_TOKEN_TTL_MS;
  const openTokens = new OneTimeTokens(openTokenTtlMs, now, 64);
  const signInPages = new SignInPages(home, openTokenTtlMs);
  const challenges = new OneTimeTokens(SHORT_TTL_MS, now);
  /** Socket tickets, each with the end of the sign-in it came from. */
  const tickets = new OneTimeTokens<number>(SHORT_TTL_MS, now);
  const browserState = await loadBrowserState(home, log);
  // Made once the port (and so our origin) is known; nothing asks before that.
  let sessions!: BrowserSessions;
  const clients = new Map<WebSocket, Client>();
  const refusals = new RefusalLog({ log, source: 'control server' });
  const upgradeDeadlineMs = options.upgradeDeadlineMs ?? DEFAULT_UPGRADE_DEADLINE_MS;
  const gate = new ConnectionGate({
    maxPending: options.maxPending ?? DEFAULT_MAX_PENDING,
    deadlineMs: upgradeDeadlineMs,
    onCut: (why) => refusals.refused(why === 'deadline' ? `not done within ${upgradeDeadlineMs} ms` : 'too many connections waiting'),
  });

  // Filled in once listening; requests cannot arrive before that.
  let port = 0;
  let hostHeader = '';
  let origin = '';
  let securityHeaders: Record<string, string> = {};

  // One answer per connection: nothing idles on a keep-alive socket, under the gate or not.
  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
    res.writeHead(status, { ...securityHeaders, 'content-type': type, 'content-length': Buffer.byteLength(body), connection: 'close', ...extra });
    res.end(body);
  };
  const sendText = (res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}) =>
    send(res, status, 'text/plain; charset=utf-8', `${text}\n`, extra);
  const sendJson = (res: ServerResponse, status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

  const bearerValid = (req: IncomingMessage) => {
    const given = bearerToken(req.headers.authorization);
    return given !== null && tokensEqual(given, token);
  };
  const renewInMs = Math.min(Math.floor(policy.idleMs / 4), 15 * 60 * 1000);

  async function serveStatic(res: ServerResponse, pathname: string): Promise<void> {
    const found = await lookupStatic(staticDir, pathname);
    if (found.kind === 'forbidden') return sendText(res, 403, 'Forbidden');
    if (found.kind === 'not-found') {
      const isRoot = pathname === '/' || pathname === '/index.html';
      return isRoot ? send(res, 200, 'text/html; charset=utf-8', notBuiltPage(version)) : sendText(res, 404, 'Not found');
    }
    send(res, 200, contentTypeFor(found.path), await readFile(found.path));
  }

  /** POST SESSION_PATH: a one-time secret, or a proof of a credential, in; a (renewed) credential and a socket ticket out. */
  async function serveSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Browsers send Origin with every POST; only our own page may sign in or renew.
    if (req.headers.origin !== origin) {
      refusals.refused('a sign-in from another origin', String(req.headers.origin ?? 'none'));
      return sendText(res, 403, `Forbidden: Origin must be ${origin}`);
    }
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return sendText(res, 415, 'Send application/json');
    let body: unknown = null;
    try {
      body = JSON.parse(await readBody(req, MAX_SESSION_BODY_BYTES));
    } catch (err) {
      if (err instanceof HttpError) throw err;
      return sendText(res, 400, 'The body is not JSON');
    }
    const request = body as { signin?: unknown; challenge?: unknown; renew?: unknown; nonce?: unknown; proof?: unknown } | null;
    let issued;
    if (typeof request?.signin === 'string') {
      issued = openTokens.consume(request.signin) ? sessions.open() : null;
      if (issued === null) {
        refusals.refused('a used or expired sign-in link');
        return sendJson(res, 401, { error: 'This sign-in link has expired or was used already.' });
      }
      void signInPages.used(request.signin).catch((err: Error) => log(`could not remove a used sign-in page: ${err.message}`));
      log('a browser signed in with a sign-in link');
    } else if (request?.challenge === true) {
      const answer: ChallengeAnswer = { nonce: challenges.mint(true) };
      return sendJson(res, 200, answer);
    } else if (typeof request?.renew === 'string' && typeof request.nonce === 'string' && typeof request.proof === 'string') {
      if (challenges.consume(request.nonce) === undefined) {
        return sendJson(res, STALE_CHALLENGE_STATUS, { error: 'This challenge has expired or was used; ask for another.' });
      }
      issued = sessions.renew(request.renew, request.nonce, request.proof);
      if (issued === null) return sendJson(res, 401, { error: 'This sign-in has ended.' });
    } else {
      return sendText(res, 400, 'Expected {"signin": …}, {"challenge": true} or {"renew": …, "nonce": …, "proof": …}');
    }
    const { credential, expiresAt, endsAt } = issued;
    const answer: SessionAnswer = { credential, expiresAt, renewInMs, ticket: tickets.mint(endsAt) };
    sendJson(res, 200, answer);
  }

  /** The CLI's own requests: bearer token, never from a browser. */
  function cliAllowed(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST') {
      sendText(res, 405, 'Method not allowed', { allow: 'POST' });
      return false;
    }
    if (req.headers.origin !== undefined) {
      refusals.refused('a browser on a CLI path', req.headers.origin);
      sendText(res, 403, 'Forbidden: not for browsers');
      return false;
    }
    if (!bearerValid(req)) {
      refusals.refused('missing or wrong token');
      sendText(res, 401, 'Unauthorized');
      return false;
    }
    return true;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A page on another site that resolves its own name to 127.0.0.1 still sends its own Host.
    if (req.headers.host !== hostHeader) return sendText(res, 403, `Forbidden: Host must be ${hostHeader}`);
    const url = new URL(req.url ?? '/', origin);
    switch (url.pathname) {
      case OPEN_TOKEN_PATH:
        if (cliAllowed(req, res)) sendJson(res, 200, { url: mintSignInUrl() });
        return;
      case OPEN_PAGE_PATH:
        if (cliAllowed(req, res)) sendJson(res, 200, { file: await writeSignInPage() });
        return;
      case REVOKE_PATH:
        if (cliAllowed(req, res)) sendJson(res, 200, await revokeSessions());
        return;
      case SESSION_PATH:
        if (req.method !== 'POST') return sendText(res, 405, 'Method not allowed', { allow: 'POST' });
        return serveSession(req, res);
    }
    if (req.method !== 'GET') return sendText(res, 405, 'Method not allowed', { allow: 'GET' });
    if (url.pathname === API_PATH) return sendText(res, 426, 'Upgrade required: this is a WebSocket endpoint', { upgrade: 'websocket' });
    await serveStatic(res, url.pathname);
  }

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    perMessageDeflate: false,
    // A browser offers its credential as a second subprotocol: echo only the plain one.
    handleProtocols: (protocols) => (protocols.has(BROWSER_PROTOCOL) ? BROWSER_PROTOCOL : false),
  });

  /** Who may open this socket, or the status that refuses it. */
  function admit(req: IncomingMessage): Client | { status: number; reason: string } {
    if (req.headers.host !== hostHeader) return { status: 403, reason: 'another Host' };
    if (new URL(req.url ?? '/', origin).pathname !== API_PATH) return { status: 404, reason: 'not the API path' };
    const requestOrigin = req.headers.origin;
    if (requestOrigin === undefined) return bearerValid(req) ? { kind: 'cli' } : { status: 401, reason: 'missing or wrong token' };
    if (requestOrigin !== origin) return { status: 403, reason: `a page from ${requestOrigin}` };
    const ticket = ticketFromProtocols(req.headers['sec-websocket-protocol']);
    const endsAt = ticket === null ? undefined : tickets.consume(ticket);
    if (endsAt === undefined) return { status: 401, reason: ticket === null ? 'a page without a sign-in' : 'a used or expired ticket' };
    return { kind: 'browser', endsAt };
  }

  function onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    // Until ws owns the socket, its errors are ours: a tab closing mid-handshake is no news.
    const onError = (err: NodeJS.ErrnoException) => {
      if (!isHangUp(err)) log(`control socket from port ${socket.remotePort}: ${err.message}`);
    };
    socket.on('error', onError);
    const verdict = admit(req);
    if ('status' in verdict) {
      refusals.refused(verdict.reason);
      return refuse(socket, verdict.status, verdict.status === 401 ? 'Unauthorized' : verdict.status === 404 ? 'Not Found' : 'Forbidden');
    }
    socket.off('error', onError);
    gate.upgraded(socket);
    wss.handleUpgrade(req, socket, head, (ws) => serveClient(ws, verdict, socket.remotePort ?? 0));
  }

  function signOut(ws: WebSocket, why: string): void {
    ws.close(SIGNED_OUT_CLOSE_CODE, why);
  }

  function serveClient(ws: WebSocket, client: Client, remotePort: number): void {
    clients.set(ws, client);
    const reply = (text: string) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(text);
    };
    const unsubscribe = hub.subscribe((event) => reply(encodeEvent(event)));
    const run = async ({ id, method, params }: WireRequest) => {
      try {
        const answer = hub.callForJson ? await hub.callForJson(method, params as ParamsOf<typeof method>) : await hub.call(method, params as ParamsOf<typeof method>);
        const result = method === 'diffs.get' ? writtenOnce(answer) : answer;
        // A diff's big texts go as the JSON bytes they are held in (in ASCII, made once per text):
        // nothing decoded. To a browser in a binary frame (still JSON): Chromium takes a text frame of a few
        // MiB in about twice the main-thread time of the same bytes as a binary one the page
        // decodes with TextDecoder (a 4.4 MB answer ~650 ms against ~340 ms, JSON.parse included).
        if (holdsLazyText(result)) {
          // In pieces, as the fragments of one message: a 4 MiB answer is never copied into one
          // buffer. All ASCII: a browser decodes that several times faster (asciiJson).
          if (ws.readyState !== WebSocket.OPEN) return;
          const pieces = encodeJsonPieces({ id, result }, { ascii: true });
          const binary = client.kind === 'browser';
          pieces.forEach((piece, i) => ws.send(piece, { binary, fin: i === pieces.length - 1 }));
          return;
        }
        reply(encodeResult(id, result));
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
      if (client.kind === 'browser' && now() >= client.endsAt) {
        signOut(ws, 'sign-in expired');
        return;
      }
      const decoded = decodeRequest(data.toString());
      if (decoded.ok) void run(decoded.request);
      else if (decoded.id !== null) reply(encodeError(decoded.id, decoded.error));
      else ws.close(1008, decoded.error.message.slice(0, 120));
    });
    ws.on('error', (err: NodeJS.ErrnoException) => {
      if (!isHangUp(err)) log(`control client on port ${remotePort}: ${err.message}`);
    });
    ws.on('close', () => {
      unsubscribe();
      clients.delete(ws);
    });
  }

  const sweep = setInterval(() => {
    for (const [ws, client] of clients) if (client.kind === 'browser' && now() >= client.endsAt) signOut(ws, 'sign-in expired');
  }, SWEEP_MS);
  sweep.unref();

  function signInLink(secret: string): string {
    return `${origin}/#${SIGNIN_PARAM}=${secret}`;
  }

  function mintSignInUrl(): string {
    return signInLink(openTokens.mint(true));
  }

  function writeSignInPage(): Promise<string> {
    const secret = openTokens.mint(true);
    return signInPages.write(signInLink(secret), secret);
  }

  /** Memory first, then disk: a key that cannot be saved must not leave the old sign-ins working. */
  async function revokeSessions(): Promise<RevokeReport> {
    const signingKey = newToken();
    sessions.rekey(signingKey);
    // Tickets already handed out would open sockets under the old key.
    tickets.clear();
    let closed = 0;
    for (const [ws, client] of clients) {
      if (client.kind !== 'browser') continue;
      signOut(ws, 'signed out');
      closed += 1;
    }
    const unsaved = await persistNewKey(home, { signingKey, controlPort: port });
    log(`every browser sign-in revoked (${closed} open ${closed === 1 ? 'page' : 'pages'} closed)${unsaved === null ? '' : `, but ${unsaved}`}`);
    return { closed, unsaved };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      const status = err instanceof HttpError ? err.status : 500;
      if (status === 500) log(`control server: ${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) sendText(res, status, status === 500 ? 'Internal error' : err.message);
      else res.destroy(err);
    });
  });
  server.on('connection', (socket: Socket) => gate.admit(socket));
  server.on('upgrade', onUpgrade);

  const remembered = browserState.controlPort;
  const wanted = options.port !== 0 ? options.port : (remembered ?? 0);
  const host = options.coreHost ?? new LocalHost();
  let listener: Listener;
  let fellBack: boolean;
  try {
    listener = await host.listen('control', { host: options.host, port: wanted, fallBack: options.port === 0 && wanted !== 0, durable: false }, ({ socket }) =>
      server.emit('connection', socket),
    );
    fellBack = listener.fellBack;
  } catch (err) {
    clearInterval(sweep);
    throw new Error(`control server: ${(err as Error).message}`);
  }
  port = listener.port;
  hostHeader = `${options.host}:${port}`;
  origin = `http://${hostHeader}`;
  // Tabs signed in at the old address would keep talking to whoever holds it now: whatever
  // they could hand over must be void, here and should Patchbay ever get that port back.
  if (fellBack) browserState.signingKey = newToken();
  sessions = new BrowserSessions(browserState.signingKey, origin, policy, now);
  // No Cross-Origin-Opener-Policy: it makes Chromium start the page in a second renderer
  // process once the response is in (~150–250 ms of every new tab's first diff, measured). All
  // it would add is to cut the handle a page that opened ours with window.open keeps; with that
  // handle a page can only navigate the tab away or count its frames (none: X-Frame-Options),
  // never read it, and the page listens to no messages.
  securityHeaders = {
    'content-security-policy': contentSecurityPolicy(`ws://${hostHeader}`),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  };

  let closing: Promise<void> | null = null;
  async function shutdown(): Promise<void> {
    clearInterval(sweep);
    await removeControlFile(home, token);
    await signInPages.close().catch((err: Error) => log(`could not remove sign-in pages: ${err.message}`));
    const stopped = listener.close();
    server.closeAllConnections();
    gate.close();
    const closed = [...clients.keys()].map((ws) => new Promise((resolve) => ws.once('close', resolve)));
    for (const ws of clients.keys()) ws.close(1001, 'Patchbay is stopping');
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(grace);
    for (const ws of clients.keys()) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await stopped;
    refusals.close();
  }

  try {
    if (port !== remembered) await saveBrowserState(home, { ...browserState, controlPort: port });
    await signInPages.clearLeftovers();
    if (fellBack) {
      log(
        `port ${remembered}, where browsers signed in last time, is taken by another program; serving on ${port} instead. ` +
          'Every browser sign-in was ended, since that address is no longer Patchbay: run `patchbay open` to sign in again',
      );
    }
    await writeControlFile(home, { host: options.host, port, pid: options.pid ?? process.pid, token, version });
  } catch (err) {
    clearInterval(sweep);
    await listener.close();
    throw new Error(`control server: cannot write to ${home}: ${(err as Error).message}`);
  }

  return {
    port,
    url: origin,
    mintSignInUrl,
    writeSignInPage,
    revokeSessions,
    close: () => (closing ??= shutdown()),
  };
}

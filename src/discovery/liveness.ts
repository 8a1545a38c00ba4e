// Is an editor really there: its process, its port, its WebSocket server and its token.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { editorHandshake, type Dialect } from '../protocol/dialect.ts';

/**
 * Signal 0 tests for existence; EPERM means it exists under another user. A zombie still
 * answers signal 0, but it is dead: a killed editor stays one until its parent reaps it,
 * and its port is already closed by then.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' && !isZombie(pid);
  }
  return !isZombie(pid);
}

/** Linux only (elsewhere there is no cheap way to ask, and a zombie counts as alive). */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  // `pid (comm) state …`: comm may itself hold spaces and parentheses, so read after the last ')'.
  const state = stat[stat.lastIndexOf(')') + 2];
  return state === 'Z' || state === 'X';
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function portAccepting(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (accepting: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(accepting);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/**
 * What a probe found. `local-error:<code>` means this machine could not make the probe (out of
 * descriptors, ports or buffers): it says nothing about the editor, so whoever probed keeps
 * what it knew before.
 */
export type ProbeResult = 'ok' | 'refused' | 'auth-rejected' | 'not-websocket' | 'timeout' | LocalProbeError;
export type LocalProbeError = `local-error:${string}`;

export function isLocalProbeError(result: ProbeResult): result is LocalProbeError {
  return result.startsWith('local-error:');
}

export interface ProbeOptions {
  port: number;
  /** Null: the editor has none (claude-code-ide.el), so none is sent. */
  token: string | null;
  dialect: Dialect;
  timeoutMs: number;
}

/** How long a probe waits for the server's close frame before cutting the socket. */
const CLOSE_GRACE_MS = 250;

/** Errors that come from the far end: whatever owns the port is no WebSocket editor. */
const REMOTE_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * An error the WebSocket client reported: refused, the far end misbehaving (no code: ws's own
 * handshake checks; HPE_*: the HTTP parser; WS_ERR_*: framing), or this machine's trouble.
 */
export function classifyProbeError(code: string | undefined): ProbeResult {
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === undefined || REMOTE_ERRORS.has(code) || code.startsWith('HPE_') || code.startsWith('WS_ERR_')) return 'not-websocket';
  return `local-error:${code}`;
}

/**
 * Opens a WebSocket as the relay's link will (editorHandshake: the dialect's auth header, and
 * subprotocol `mcp` for a Claude-dialect editor) and closes it at once. pi-ide.nvim answers a
 * bad token with 400 before the upgrade, other servers with 401/403, VS Code's extension with a
 * close 1008 right after it: all mean "rejected". JetBrains' plugin (the MCP Kotlin SDK) refuses
 * a connection without subprotocol `mcp` too, so a probe without it read that as a wrong token.
 * An editor without a token (claude-code-ide.el) gets no auth header. Only ever sent to a port
 * whose owner was checked first (see portHeldBy).
 * Resolves once the socket is closed, so a probe leaves nothing open behind it.
 */
export function probeEditor({ port, token, dialect, timeoutMs }: ProbeOptions): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let result: ProbeResult | null = null;
    let ws: WebSocket;
    try {
      const { protocols, headers } = editorHandshake({ token, dialect });
      ws = new WebSocket(`ws://127.0.0.1:${port}`, protocols, {
        headers,
        perMessageDeflate: false,
        followRedirects: false,
      });
    } catch (err) {
      resolve(classifyProbeError((err as NodeJS.ErrnoException).code ?? 'EUNKNOWN'));
      return;
    }
    let graceTimer: NodeJS.Timeout | null = null;
    const settle = (found: ProbeResult) => {
      result ??= found;
      clearTimeout(deadline);
    };
    const deadline = setTimeout(() => {
      settle('timeout');
      ws.terminate();
    }, timeoutMs);

    ws.on('open', () => {
      settle('ok');
      ws.close(1000, 'probe');
      graceTimer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
    });
    ws.on('close', (code: number) => {
      if (graceTimer) clearTimeout(graceTimer);
      // VS Code's extension lets a bad token through the upgrade and closes with 1008 at once.
      if (code === 1008 && (result === null || result === 'ok')) result = 'auth-rejected';
      settle('not-websocket'); // closed before it opened, without an HTTP answer or error
      resolve(result!);
    });
    ws.on('unexpected-response', (request, response) => {
      const status = response.statusCode ?? 0;
      settle(status === 400 || status === 401 || status === 403 ? 'auth-rejected' : 'not-websocket');
      response.resume();
      request.destroy();
      ws.terminate();
    });
    ws.on('error', (err: NodeJS.ErrnoException) => settle(classifyProbeError(err.code)));
  });
}

/** A person-readable reason for a failed probe. */
export function describeProbe(result: Exclude<ProbeResult, 'ok'>, port: number, timeoutMs: number): string {
  if (isLocalProbeError(result)) {
    return `port ${port} could not be probed: this machine refused the connection (${result.slice('local-error:'.length)})`;
  }
  switch (result) {
    case 'refused':
      return `port ${port} is not accepting connections`;
    case 'auth-rejected':
      return `the server on port ${port} rejects this lockfile's token`;
    case 'not-websocket':
      return `port ${port} is owned by something that is not an editor's WebSocket server`;
    case 'timeout':
      return `port ${port} did not answer a WebSocket handshake within ${timeoutMs} ms`;
  }
}

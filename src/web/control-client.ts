// The CLI's way in: find the running daemon through `<home>/control.json` and speak HubApi to it.
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { createRemoteHub, type RemoteHub } from '../api/remote.ts';
import { HubError } from '../api/types.ts';
import { pidAlive, portAccepting } from '../discovery/liveness.ts';
import { controlFilePath, readControlFile, type ControlFile } from './control-file.ts';
import { API_PATH, OPEN_PAGE_PATH, OPEN_TOKEN_PATH, REVOKE_PATH } from './control-paths.ts';
import { wsMessageSocket } from './ws-socket.ts';

/** No daemon: its control file is missing or names a process that has exited. */
export class NotRunningError extends HubError {
  constructor(message: string) {
    super(message, 'unavailable');
    this.name = 'NotRunningError';
  }
}

const CONNECT_TIMEOUT_MS = 5000;
const MAX_FRAME_BYTES = 64 * 1024 * 1024;
const START_HINT = 'Start it with: patchbay daemon';

/** The running daemon's control file, or NotRunningError saying why there is none. */
export async function locateDaemon(home: string): Promise<ControlFile> {
  const path = controlFilePath(home);
  const control = await readControlFile(home);
  if (!control) throw new NotRunningError(`Patchbay is not running (no ${path}). ${START_HINT}`);
  if (!pidAlive(control.pid)) {
    throw new NotRunningError(`Patchbay is not running (pid ${control.pid} in ${path} has exited). ${START_HINT}`);
  }
  return control;
}

const PROBE_TIMEOUT_MS = 1000;

/**
 * The daemon that answers on its control port, or null when none runs (no control file, its
 * pid gone, or nothing on its port: a reused pid). Throws when the control file is unreadable.
 */
export async function answeringDaemon(home: string): Promise<ControlFile | null> {
  let control: ControlFile;
  try {
    control = await locateDaemon(home);
  } catch (err) {
    if (err instanceof NotRunningError) return null;
    throw err;
  }
  return (await portAccepting(control.port, PROBE_TIMEOUT_MS)) ? control : null;
}

function unreachable(control: ControlFile, home: string, why: string): HubError {
  const where = `${control.host}:${control.port}`;
  return new HubError(`Patchbay (pid ${control.pid}) is not answering on ${where} (from ${controlFilePath(home)}): ${why}`, 'unavailable');
}

function describeFailure(err: NodeJS.ErrnoException): string {
  return err.code === 'ECONNREFUSED' ? 'connection refused' : err.message;
}

export async function connectControl(home: string): Promise<RemoteHub> {
  const control = await locateDaemon(home);
  const ws = new WebSocket(`ws://${control.host}:${control.port}${API_PATH}`, {
    headers: { authorization: `Bearer ${control.token}` },
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
    followRedirects: false,
    handshakeTimeout: CONNECT_TIMEOUT_MS,
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      ws.removeAllListeners();
      ws.on('error', () => {}); // the socket is being discarded; its last words are already reported
      ws.terminate();
      reject(err);
    };
    ws.once('open', () => {
      ws.removeAllListeners();
      resolve();
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      const why = status === 401 ? `it refused the token (HTTP 401); is another program on that port?` : `HTTP ${status}`;
      fail(unreachable(control, home, why));
    });
    ws.once('error', (err: NodeJS.ErrnoException) => fail(unreachable(control, home, describeFailure(err))));
  });
  return createRemoteHub(wsMessageSocket(ws));
}

/** POSTs to one of the daemon's CLI paths with the bearer token; resolves with the JSON answer. */
async function postToDaemon(home: string, path: string): Promise<Record<string, unknown>> {
  const control = await locateDaemon(home);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: control.host,
        port: control.port,
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${control.token}`, 'content-length': 0 },
        timeout: CONNECT_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => reject(unreachable(control, home, err.message)));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) return reject(unreachable(control, home, `HTTP ${res.statusCode}: ${body.trim()}`));
          try {
            const value: unknown = JSON.parse(body);
            if (typeof value !== 'object' || value === null) throw new Error('not a JSON object');
            resolve(value as Record<string, unknown>);
          } catch (err) {
            reject(unreachable(control, home, `bad answer to ${path}: ${(err as Error).message}`));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => reject(unreachable(control, home, describeFailure(err))));
    req.end();
  });
}

/** Asks the daemon for a one-time link that signs a browser in (`<origin>/#signin=<secret>`). */
export async function requestOpenUrl(home: string): Promise<string> {
  const { url } = await postToDaemon(home, OPEN_TOKEN_PATH);
  if (typeof url !== 'string') throw new HubError(`bad answer to ${OPEN_TOKEN_PATH}: no "url" in it`, 'unavailable');
  return url;
}

/** Asks the daemon for a page that signs a browser in once: a file only the user can read, so its path may go on a command line. */
export async function requestOpenPage(home: string): Promise<string> {
  const { file } = await postToDaemon(home, OPEN_PAGE_PATH);
  if (typeof file !== 'string') throw new HubError(`bad answer to ${OPEN_PAGE_PATH}: no "file" in it`, 'unavailable');
  return file;
}

/** Ends every browser sign-in of the running daemon: how many open pages it closed, and why the new key is not saved, if it is not. */
export async function revokeBrowserSessions(home: string): Promise<{ closed: number; unsaved: string | null }> {
  const { closed, unsaved } = await postToDaemon(home, REVOKE_PATH);
  if (typeof closed !== 'number') throw new HubError(`bad answer to ${REVOKE_PATH}: no "closed" count in it`, 'unavailable');
  return { closed, unsaved: typeof unsaved === 'string' ? unsaved : null };
}

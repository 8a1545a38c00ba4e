// Small doubles for discovery tests: live, dead and zombie pids, lockfiles, and a tiny editor
// WebSocket server that, like pi-ide.nvim, answers a bad token with HTTP 400 before upgrade.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { waitFor } from '../peers/wait.ts';

export interface LiveProcess {
  pid: number;
  child: ChildProcess;
  kill: () => Promise<void>;
}

/** A real process that stays alive until killed (and is reaped, so its pid reads as dead). */
export async function spawnLive(args: string[] = ['-e', 'setInterval(() => {}, 1000)'], cwd?: string): Promise<LiveProcess> {
  const child = spawn(process.execPath, args, { stdio: 'ignore', cwd });
  await once(child, 'spawn');
  const pid = child.pid!;
  let exited = false;
  child.once('exit', () => (exited = true));
  return {
    pid,
    child,
    kill: async () => {
      if (exited) return;
      const gone = once(child, 'exit');
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/** The pid of a process that has exited and been reaped. */
export async function deadPid(): Promise<number> {
  const live = await spawnLive(['-e', '']);
  if (live.child.exitCode === null && live.child.signalCode === null) await once(live.child, 'exit');
  return live.pid;
}

/**
 * A process whose parent never reaps it, so once killed it stays a zombie: pid taken, signal 0
 * answered, nothing running. That is what a killed editor is until its parent gets to it.
 * Linux only; perl is Essential on Debian.
 */
export async function spawnUnreaped(): Promise<{ pid: number; kill: () => Promise<void>; cleanup: () => void }> {
  const parent = spawn('perl', ['-e', '$| = 1; my $p = fork; if (!$p) { sleep 60; exit 0 } print "$p\\n"; sleep 60'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
  const pid = Number(line.toString().trim());
  return {
    pid,
    kill: async () => {
      process.kill(pid, 'SIGKILL');
      await waitFor(() => isZombie(pid), { message: 'a zombie' });
    },
    cleanup: () => parent.kill('SIGKILL'),
  };
}

export function isZombie(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

export interface FakeEditor {
  port: number;
  token: string;
  /** Upgrade requests seen (probes included). */
  upgrades: number;
  close: () => Promise<void>;
}

/** Accepts either dialect's header; answers a missing or wrong token with 400, like pi-ide.nvim. */
export async function startEditor(token = 'editor-token', rejectStatus = 400, port = 0): Promise<FakeEditor> {
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer((_req, res) => res.writeHead(426).end());
  const editor: FakeEditor = { port: 0, token, upgrades: 0, close: async () => {} };
  server.on('upgrade', (req, socket, head) => {
    editor.upgrades++;
    const given = req.headers['x-pi-ide-authorization'] ?? req.headers['x-claude-code-ide-authorization'];
    if (given !== token) {
      socket.end(`HTTP/1.1 ${rejectStatus} Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  editor.port = (server.address() as AddressInfo).port;
  editor.close = async () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return editor;
}

/** A plain HTTP server (no WebSocket): owns a port, is not an editor. */
export async function startHttpServer(): Promise<{ port: number; server: Server; close: () => Promise<void> }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function lockBody(pid: number, token: string, folders: string[] = ['/work/project'], ideName = 'Neovim'): object {
  return { pid, workspaceFolders: folders, ideName, transport: 'ws', authToken: token };
}

export async function writeLock(dir: string, port: number, body: object | string): Promise<string> {
  const path = join(dir, `${port}.lock`);
  await writeFile(path, typeof body === 'string' ? body : JSON.stringify(body));
  return path;
}

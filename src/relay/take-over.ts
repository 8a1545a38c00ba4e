// A core taking over from the one before it (after `patchbay restart`, or after it died): each
// connection the keeper kept goes on as it was (an agent's session under its id; a link to an
// editor once discovery lists that editor again), and each diff held for an agent goes back into
// the inbox under its id, answered to the agent's same request when it is decided. A held diff
// whose agent is gone is dropped; one whose request was never written whole is rejected to its
// agent (it is still waiting, and a rejection writes nothing).
import type { Socket } from 'node:net';
import { readBounded } from '../fs/bounded-read.ts';
import type { HeldDiff } from '../keeper/protocol.ts';
import { classifyMessage, parseFrame, type RpcRequest } from '../protocol/jsonrpc.ts';
import { textResult } from '../protocol/mcp.ts';
import { heldFactsSchema, type HeldDiffs } from '../review/held-diffs.ts';
import { diffRejected } from '../review/inbox.ts';
import { adoptWebSocket } from '../core/ws-handover.ts';
import { readConnMeta } from './conn-meta.ts';
import type { Relay } from './relay.ts';
import { arrivedFrame, LAZY_FRAME_BYTES, readLazily, type Frame } from './rpc-link.ts';
import type { RemoteSide, Session } from './session.ts';
import { openDiffArgs, seenHere } from './tools/open-diff.ts';

export interface KeptConnection {
  id: string;
  socket: Socket;
  meta: unknown;
  head: Buffer;
}

export interface TakeOverDeps {
  relay: Relay;
  held: HeldDiffs;
  maxPayload(): number;
  /** The host's copy of a connection goes when it ends. */
  drop(connId: string): void;
  /** Reads the on-disk original a restored diff is reviewed against (as for a new one). */
  readOriginal(path: string): Promise<Parameters<Relay['review']['originalRead']>[1]>;
  /** The most a held request's file may hold. */
  maxFrameBytes(): number;
  /** A remote by name (the tunnel an agent's connection came through), or null when there is none. */
  remote(name: string): RemoteSide | null;
  log(message: string): void;
}

/** Takes over the connections; returns the sessions by their connection's id (for the held diffs). */
export function takeOverConnections(conns: readonly KeptConnection[], deps: TakeOverDeps): Map<string, Session> {
  const sessions = new Map<string, Session>();
  for (const conn of conns) {
    conn.socket.once('close', () => deps.drop(conn.id));
    const meta = readConnMeta(conn.meta);
    if (typeof meta === 'string') {
      deps.log(`connection ${conn.id}: what the last core kept of it is unusable (${meta}); closed`);
      conn.socket.destroy();
      continue;
    }
    if (meta.kind === 'agent') {
      const remote = meta.remote ? deps.remote(meta.remote.name) : null;
      if (meta.remote && !remote) {
        deps.log(`agent ${meta.session}: it came through remote ${meta.remote.name}, which Patchbay no longer has; closed`);
        conn.socket.destroy();
        continue;
      }
      const ws = adoptWebSocket(conn.socket, conn.head, { role: 'server', protocol: meta.protocol, maxPayload: deps.maxPayload() });
      watchBrokenFrames(ws, `agent ${meta.session}`, deps.log);
      sessions.set(conn.id, deps.relay.restoreAgent(ws, meta, conn.id, remote));
    } else {
      deps.relay.parkEditor({ connId: conn.id, socket: conn.socket, head: conn.head, meta });
    }
  }
  return sessions;
}

/**
 * A connection whose stream was mid-frame when the last core died cannot go on: ws fails on
 * the first bad frame. Said plainly, so a person knows why that agent dropped.
 */
function watchBrokenFrames(ws: { once(event: 'error', cb: (err: Error) => void): unknown }, who: string, log: (message: string) => void): void {
  ws.once('error', (err) => log(`${who}: its connection broke after the core restarted (${err.message}): the last core stopped in the middle of a frame`));
}

/** Puts the held diffs back (after the sessions). Resolves once each is listed or dropped. */
export async function takeOverHeld(held: readonly HeldDiff[], sessions: Map<string, Session>, deps: TakeOverDeps): Promise<void> {
  await Promise.all(held.map((diff) => takeOverOne(diff, sessions.get(diff.conn), deps)));
}

async function takeOverOne(diff: HeldDiff, session: Session | undefined, deps: TakeOverDeps): Promise<void> {
  const facts = heldFactsSchema.safeParse(diff.facts);
  if (!facts.success) {
    deps.log(`held diff ${diff.id}: what the last core kept of it is unusable; dropped`);
    return forget(diff, deps);
  }
  const { data } = facts;
  if (!session) {
    deps.log(`held diff ${diff.id} (${data.path}): its agent went away while Patchbay restarted; dropped`);
    return forget(diff, deps);
  }
  const request = diff.file === '' ? null : await readRequest(diff.file, deps.maxFrameBytes()).catch((err: Error) => {
    deps.log(`held diff ${diff.id} (${data.path}): ${diff.file} cannot be read: ${err.message}`);
    return null;
  });
  const args = request ? openDiffArgs.safeParse((request.msg.params as { arguments?: unknown } | undefined)?.arguments) : null;
  if (!request || !args?.success) {
    // The agent still waits on this request: a rejection answers it and writes nothing.
    const note = `Patchbay restarted as this edit arrived and could not keep it; propose it again`;
    session.link.respond(data.request, { content: [...diffRejected(data.tabName).content, ...textResult(`Patchbay: ${note}`).content] });
    deps.log(`held diff ${diff.id} (${data.path}): ${note}; rejected to ${session.id}`);
    return forget(diff, deps);
  }
  deps.held.adopt(diff.id, data, diff.file);
  // A remote agent's request names its files as they are over there: mapped here as when it arrived.
  const seen = session.remote ? seenHere(session.remote, args.data) : null;
  const local = seen?.args ?? args.data;
  deps.relay.review.restore(session, request.msg, request.frame, local, data, diff.id, seen?.place);
  const unmapped = seen && !seen.place.mapped ? seen.place.path : null;
  const original = unmapped !== null && session.remote ? session.remote.readOriginal(unmapped, deps.relay.review.room()) : deps.readOriginal(local.old_file_path || local.new_file_path);
  deps.relay.review.originalRead(diff.id, await original);
}

function forget(diff: HeldDiff, deps: TakeOverDeps): void {
  deps.held.forget(diff.id, diff.file);
}

/** The agent's request as it arrived, from its file: read as the relay read it (a big one lazily). */
async function readRequest(file: string, maxBytes: number): Promise<{ msg: RpcRequest; frame: Frame } | null> {
  const read = await readBounded(file, maxBytes, { noFollow: true });
  if (read.kind !== 'bytes') return null;
  const bytes = read.bytes;
  const lazy = bytes.length >= LAZY_FRAME_BYTES ? readLazily(bytes) : undefined;
  const text = lazy ? '' : bytes.toString('utf8');
  const parsed = lazy ? classifyMessage(lazy.value) : parseFrame(text);
  if (!parsed.ok || parsed.message.kind !== 'request') return null;
  return { msg: parsed.message.msg, frame: lazy?.frame ?? arrivedFrame(bytes, text, undefined) };
}

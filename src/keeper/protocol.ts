// The messages between the keeper (`patchbay daemon`, src/keeper/) and the core it runs as a
// child (src/core/), over Node's IPC channel, JSON-serialised: small messages cost about half
// of what the `advanced` serialisation costs (measured: ~9 µs against ~19 µs to send, ~7 µs
// against ~11 µs to receive), and nothing big travels here: a held diff's bytes go to a file
// (see HeldDiff). Sockets travel beside `conn` and `connected` messages as handles.
//
// The keeper treats what a core keeps with a connection (`meta`) and a held diff (`facts`) as
// opaque JSON: it hands them back to the next core, which may be newer code (an upgrade). A
// core that speaks another protocol is told so and the keeper keeps the old state for the next.

/** Bumped when a message changes shape: a keeper and a core must speak the same. */
export const KEEPER_PROTOCOL = 1;

/** The internal subcommand the keeper starts a core with (`patchbay __core`). */
export const CORE_COMMAND = '__core';

/** Why a core was started: the first of this keeper, after `patchbay restart`, or after the last one died. */
export type StartReason = 'start' | 'restart' | 'crash';

export interface CoreCrash {
  /** When the keeper saw it die (epoch ms). */
  at: number;
  pid: number;
  code: number | null;
  signal: string | null;
  /** Its last lines on stderr. */
  stderr: string[];
}

/** A connection the keeper holds, as a new core gets it (its socket comes with the message). */
export interface ConnRecord {
  id: string;
  /** The listener it came through (`door`, `control`…), or `connect` for one the core opened. */
  via: string;
  /** What the core that registered it needs to take it over; null: never registered (a new connection). */
  meta: unknown;
  /** Bytes the last core read but did not consume (base64): they come first. */
  head?: string;
}

/** A child the keeper runs for a core (a hosted pi), as a new core finds it. */
export interface ChildRecord {
  id: string;
  pid: number;
  /** What the core said of it when it asked for it (opaque to the keeper). */
  meta: unknown;
  /** Extension UI requests pi sent that no stdin line answered yet (JSONL lines): shown again. */
  unanswered: string[];
}

/**
 * An agent's openDiff no decision has answered yet. The request's bytes are in `file` (in the
 * home, 0600): writing 10 MiB there costs the core ~2 ms of CPU, where passing them over a
 * pipe cost the keeper ~7–11 ms and the IPC channel the core ~37 ms (measured).
 */
export interface HeldDiff {
  id: string;
  /** The agent's connection. */
  conn: string;
  file: string;
  /** What the core needs to put it back (session, tab, where it was offered…); opaque here. */
  facts: unknown;
}

export interface ListenRequest {
  name: string;
  host: string;
  port: number;
  /** On EADDRINUSE, any free port instead. */
  fallBack: boolean;
  /** Its connections outlive a core (the keeper keeps a copy) or go with it. */
  durable: boolean;
}

export interface SpawnRequest {
  id: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Its own process group (pi: so its tools' commands stop with it). */
  detached: boolean;
  meta: unknown;
}

/** Core → keeper. `req` numbers a request; the keeper answers with the same `req`. */
export type CoreMessage =
  | { t: 'hello'; protocol: number }
  | ({ t: 'listen'; req: number } & ListenRequest)
  | { t: 'unlisten'; name: string }
  | { t: 'connect'; req: number; host: string; port: number }
  | { t: 'keep'; conn: string; meta: unknown }
  | { t: 'drop'; conn: string }
  | ({ t: 'spawn'; req: number } & SpawnRequest)
  | { t: 'childMeta'; child: string; meta: unknown }
  | { t: 'stdin'; child: string; text: string }
  | { t: 'endStdin'; child: string }
  | { t: 'signal'; child: string; signal: NodeJS.Signals; group: boolean }
  | { t: 'hold'; diff: HeldDiff }
  | { t: 'release'; diff: string }
  | { t: 'remember'; key: string; value: unknown }
  /** Serving: the daemon prints this (and `patchbay restart` waits for it). */
  | { t: 'ready'; door: number | null; control: string; warnings: string[] }
  /** The person asked for a restart (`patchbay restart`, the desktop app's Restart): `restarting` or `failed` answers. */
  | { t: 'restart'; req: number }
  /** Handed over at frame boundaries (graceful restart): each connection's unread bytes; then it exits. */
  | { t: 'handedOver'; heads: { conn: string; head: string }[]; broken: string[] }
  /** Review ended cleanly (full stop): the keeper may close everything. */
  | { t: 'stopped' };

/** Keeper → core. */
export type KeeperMessage =
  | {
      t: 'init';
      protocol: number;
      keeperPid: number;
      reason: StartReason;
      /** The core before this one died: when, how. */
      crash: CoreCrash | null;
      /** Cores this keeper started before this one, and when it started. */
      restarts: number;
      since: number;
      /** How many `conn` messages (with their sockets) follow before `restored`. */
      conns: number;
      held: HeldDiff[];
      children: ChildRecord[];
      memory: Record<string, unknown>;
    }
  | { t: 'conn'; conn: ConnRecord }
  /** Every kept connection was handed over: the core may restore. */
  | { t: 'restored' }
  | { t: 'listening'; req: number; port: number; fellBack: boolean }
  | { t: 'connected'; req: number; conn: string }
  | { t: 'spawned'; req: number; pid: number }
  /** The next core is loaded and this one is about to be asked to hand over. */
  | { t: 'restarting'; req: number }
  | { t: 'failed'; req: number; error: string; code?: string }
  /** Whole lines of a child's stdout (never a partial line). */
  | { t: 'out'; child: string; text: string }
  | { t: 'err'; child: string; text: string }
  | { t: 'exit'; child: string; code: number | null; signal: string | null }
  /** Stop at frame boundaries and hand everything over (graceful restart). */
  | { t: 'handover' }
  /** End review cleanly (reject pending diffs, put lockfiles back), then say `stopped`. */
  | { t: 'shutdown'; reason: string };

// Every path, limit and deadline the hub uses, with defaults in one place.
// Only this module reads the environment (handed in by the entry point).
import { homedir, platform } from 'node:os';
import { join } from 'node:path';
import { openFileLimit, pendingCapFor } from './transport/connection-gate.ts';

export interface HubOptions {
  /** Patchbay's own state: config.json (settings + memory), control.json. */
  home: string;
  /** pi-ide's lock dir: `$PI_IDE_LOCK_DIR` or `~/.pi/ide`. */
  piLockDir: string;
  /** Claude Code's lock dir: `$CLAUDE_CONFIG_DIR/ide` or `~/.claude/ide`. */
  claudeLockDir: string;
  /** pi's global settings file: `$PI_CODING_AGENT_DIR/settings.json`. */
  piSettingsFile: string;
  /** pi's agent dir: `$PI_CODING_AGENT_DIR` or `~/.pi/agent` (its sessions are under it). */
  piAgentDir: string;
  /** `$PI_CODING_AGENT_SESSION_DIR`: where pi saves sessions instead, when set. */
  piSessionDir: string | null;
  /** Host for the door and the control server; loopback only. */
  host: string;
  /** 0 = any free port. */
  doorPort: number;
  controlPort: number;
  /**
   * Connections the door and the control server each let wait for their upgrade (or, on the
   * control server, for their one HTTP answer): well below the descriptor limit, so a flood of
   * half-open sockets never starves discovery.
   */
  maxPendingConnections: number;
  /** A connection that has not upgraded (or been answered) this long after connecting is cut. */
  upgradeDeadlineMs: number;
  /** Lock-dir polling interval (fs.watch is the fast path; polling the fallback). */
  pollMs: number;
  /** How often editors' pids are checked. */
  livenessMs: number;
  /** Cap on an editor's lockfile. */
  maxLockfileBytes: number;
  /** On-disk contents over this are not kept for review ("too large to show"). */
  maxReviewFileBytes: number;
  /**
   * What pending diffs may hold in memory, all sessions together (their requests and the
   * originals read for them): one agent cannot make Patchbay hold more (DESIGN §10).
   */
  maxPendingDiffBytes: number;
  /** Frames kept per session for the traffic inspector. */
  trafficEntries: number;
  /** Decisions kept in the history. */
  historyEntries: number;
  /** Bytes of diff contents the history keeps on disk, all decisions together. */
  historyBytes: number;
  /** Characters of one diff's contents above which the history keeps only its decision. */
  historyDiffChars: number;
  /** Scan for running pi processes that are not connected (Linux /proc, macOS ps). */
  scanProcesses: boolean;
  /**
   * How hosted sessions run pi when the piCommand setting is empty: the program and its leading
   * arguments, before `--mode rpc`. `$PATCHBAY_PI_COMMAND`: a path, or a JSON array
   * (`["/opt/node22/bin/node","/opt/pi/cli.js"]`); null when it is not set (`pi` on PATH).
   */
  piCommand: string[] | null;
  /** The environment hosted pi sessions start with (the entry point's; `PI_IDE_LOCK_DIR` is added). */
  piEnv: NodeJS.ProcessEnv;
  /** A hosted pi must answer its first `get_state` within this. */
  piStartTimeoutMs: number;
  /** The ssh program remotes are reached with (`ssh`: the one on PATH, so the person's own config applies). */
  sshCommand: string;
  /** The environment the system tools Patchbay runs start in (ssh, git): the entry point's, so SSH_AUTH_SOCK and HOME apply. */
  toolEnv: NodeJS.ProcessEnv;
  /** ServerAliveInterval (s) × ServerAliveCountMax: how long a silent remote takes to count as dropped. */
  remoteAliveIntervalS: number;
  remoteAliveCountMax: number;
  /** ssh's ConnectTimeout (s); a tunnel not up within this plus 15 s is given up and retried. */
  remoteConnectTimeoutS: number;
  /** The wait after a remote's first failure (it doubles up to the max). */
  remoteRetryFirstMs: number;
  remoteRetryMaxMs: number;
  /** Deadline for quick RPC commands (state, models, stats); prompts and aborts have none. */
  piCommandTimeoutMs: number;
  /** Stopping a hosted pi: each step (abort, EOF, SIGTERM) gets this long before the next. */
  piStopGraceMs: number;
  /**
   * A hosted pi not at the door this long after starting gets its pi-ide's `/ide` run (null:
   * never); at once where its autoconnect is off. An autoconnecting pi-ide was at the door within
   * 0.12 s of pi's answer in every run measured (load 12 on 2 cores), so a second leaves room.
   */
  piIdeConnectMs: number | null;
  /** A prompt to a hosted pi whose pi-ide has not reached the door waits this long, then is refused. */
  piReviewWaitMs: number;
  version: string;
}

/**
 * `$PATCHBAY_PI_COMMAND`: one path (spaces allowed), or a JSON array of program and arguments.
 * Anything else is taken as one path, so a mistake shows up as "pi not found: …" at `pi.start`
 * rather than stopping every command that reads the options.
 */
export function parsePiCommand(value: string | undefined): string[] {
  const text = value?.trim() ?? '';
  if (text === '') return ['pi'];
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((p) => typeof p === 'string' && p !== '')) {
        return parsed as string[];
      }
    } catch {
      // Not JSON after all: a path that starts with "[".
    }
  }
  return [text];
}

export interface PiCommandChoice {
  command: string[];
  /** The piCommand setting, `$PATCHBAY_PI_COMMAND`, or neither (`pi` on PATH). */
  source: 'settings' | 'environment' | 'default';
}

/** The hosted pi command: Patchbay's setting when it is set, else the environment's, else `pi`. */
export function choosePiCommand(setting: string, fromEnv: readonly string[] | null): PiCommandChoice {
  if (setting.trim() !== '') return { command: parsePiCommand(setting), source: 'settings' };
  if (fromEnv !== null) return { command: [...fromEnv], source: 'environment' };
  return { command: ['pi'], source: 'default' };
}

/** The Electron app's user-data dir, so desktop and headless share one state file. */
export function defaultHome(env: NodeJS.ProcessEnv, os: NodeJS.Platform = platform()): string {
  const home = homedir();
  if (os === 'darwin') return join(home, 'Library', 'Application Support', 'Patchbay');
  if (os === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Patchbay');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'Patchbay');
}

export function resolveOptions(env: NodeJS.ProcessEnv, overrides: Partial<HubOptions> = {}): HubOptions {
  const home = homedir();
  const piAgentDir = env.PI_CODING_AGENT_DIR || join(home, '.pi', 'agent');
  return {
    home: env.PATCHBAY_HOME || defaultHome(env),
    piLockDir: env.PI_IDE_LOCK_DIR || join(home, '.pi', 'ide'),
    claudeLockDir: join(env.CLAUDE_CONFIG_DIR || join(home, '.claude'), 'ide'),
    piSettingsFile: join(piAgentDir, 'settings.json'),
    piAgentDir,
    piSessionDir: env.PI_CODING_AGENT_SESSION_DIR || null,
    host: '127.0.0.1',
    doorPort: Number(env.PATCHBAY_DOOR_PORT ?? 0) || 0,
    controlPort: Number(env.PATCHBAY_CONTROL_PORT ?? 0) || 0,
    maxPendingConnections: pendingCapFor(openFileLimit()),
    upgradeDeadlineMs: 5000,
    pollMs: 1000,
    livenessMs: 2000,
    maxLockfileBytes: 64 * 1024,
    maxReviewFileBytes: 8 * 1024 * 1024,
    maxPendingDiffBytes: 256 * 1024 * 1024,
    trafficEntries: 500,
    historyEntries: 200,
    historyBytes: 64 * 1024 * 1024,
    historyDiffChars: 8 * 1024 * 1024,
    scanProcesses: env.PATCHBAY_SCAN_PROCESSES !== '0',
    piCommand: env.PATCHBAY_PI_COMMAND?.trim() ? parsePiCommand(env.PATCHBAY_PI_COMMAND) : null,
    piEnv: env,
    piStartTimeoutMs: 30_000,
    piCommandTimeoutMs: 30_000,
    piStopGraceMs: 3000,
    piIdeConnectMs: 1000,
    sshCommand: 'ssh',
    toolEnv: env,
    remoteAliveIntervalS: 15,
    remoteAliveCountMax: 3,
    remoteConnectTimeoutS: 20,
    remoteRetryFirstMs: 1000,
    remoteRetryMaxMs: 60_000,
    piReviewWaitMs: 20_000,
    version: '0.1.0',
    ...overrides,
  };
}

// Doors for Claude Code in editors' terminals. Run in an IDE's terminal (VS Code and its forks,
// JetBrains), Claude Code trusts only a lockfile whose pid is one of its ancestors, so Patchbay's
// door, whose pid is its own, is never seen there. The main door's Claude lockfile names one
// editor's pid instead; every other editor pid gets a door of its own here (a listener like the
// main door: loopback, its own token checked before the upgrade, browser Origins refused),
// advertised by a lockfile naming that pid and its folders (see door-lockfiles.ts).
import type { ClaudeDoors, ExtraDoor } from '../discovery/door-lockfiles.ts';
import type { Dialect } from '../api/types.ts';
import type { Door } from './door.ts';

/** What a door for an editor's terminals is made from: the editors in a Claude lock dir. */
export interface TerminalEditor {
  pid: number;
  dialect: Dialect;
  workspaceFolders: readonly string[];
}

export interface TerminalGroup {
  pid: number;
  folders: string[];
}

/** Claude-dialect editors by pid (windows of one VS Code share one), in the order first seen. */
export function terminalGroups(editors: readonly TerminalEditor[], selfPid: number): TerminalGroup[] {
  const groups = new Map<number, TerminalGroup>();
  for (const editor of editors) {
    if (editor.dialect !== 'claude' || editor.pid === selfPid) continue;
    const group = groups.get(editor.pid) ?? { pid: editor.pid, folders: [] };
    for (const folder of editor.workspaceFolders) if (!group.folders.includes(folder)) group.folders.push(folder);
    groups.set(editor.pid, group);
  }
  return [...groups.values()];
}

/**
 * The pid the main door names: the one it named while that editor lives (its lockfile stays
 * put), else the first editor pid without a door of its own (closing one would drop the Claude
 * Code sessions that came through it), else none (Patchbay's own pid).
 */
export function mainTerminalPid(groups: readonly TerminalGroup[], previous: number | null, ownDoor: ReadonlySet<number>): number | null {
  if (previous !== null && groups.some((g) => g.pid === previous)) return previous;
  return groups.find((g) => !ownDoor.has(g.pid))?.pid ?? null;
}

/** Opens the door for that editor pid's terminals (its token chosen by the opener: a kept one, after a restart). */
export type OpenDoor = (pid: number) => Promise<{ door: Door; token: string }>;

export class TerminalDoors {
  private main: number | null = null;
  /** Editor pid → its own door. */
  private readonly doors = new Map<number, { door: Door; token: string }>();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly open: OpenDoor,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Brings the doors in line with the live editors: one for each Claude-dialect editor pid but
   * the one the main door names; doors of pids gone are closed. Calls run one after another.
   */
  sync(editors: readonly TerminalEditor[], selfPid: number): Promise<ClaudeDoors> {
    const run = this.queue.then(() => this.syncNow(terminalGroups(editors, selfPid)));
    this.queue = run.catch(() => {});
    return run;
  }

  /** Ports of the doors open now (for tests and status). */
  ports(): number[] {
    return [...this.doors.values()].map((d) => d.door.port);
  }

  /** The doors open now: whose terminals, where, with which token (kept for the next start). */
  list(): { pid: number; port: number; token: string }[] {
    return [...this.doors].map(([pid, d]) => ({ pid, port: d.door.port, token: d.token }));
  }

  get size(): number {
    return this.doors.size;
  }

  /** Closes every door (dropping their connections). Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    const doors = [...this.doors.values()];
    this.doors.clear();
    await Promise.all(doors.map((d) => d.door.close()));
  }

  private async syncNow(groups: TerminalGroup[]): Promise<ClaudeDoors> {
    this.main = mainTerminalPid(groups, this.main, new Set(this.doors.keys()));
    const wanted = groups.filter((g) => g.pid !== this.main);
    const keep = new Set(wanted.map((g) => g.pid));
    for (const [pid, { door }] of this.doors) {
      if (keep.has(pid)) continue;
      this.doors.delete(pid);
      await door.close();
    }
    if (this.closed) return { pid: null, extra: [] };
    await Promise.all(
      wanted
        .filter((g) => !this.doors.has(g.pid))
        .map(async (g) => {
          try {
            this.doors.set(g.pid, await this.open(g.pid));
          } catch (err) {
            this.log(`door for the terminals of pid ${g.pid}: cannot open: ${(err as Error).message}; Claude Code in them does not see Patchbay`);
          }
        }),
    );
    const extra: ExtraDoor[] = wanted.flatMap((g) => {
      const open = this.doors.get(g.pid);
      return open ? [{ port: open.door.port, token: open.token, pid: g.pid, folders: g.folders }] : [];
    });
    return { pid: this.main, extra };
  }
}

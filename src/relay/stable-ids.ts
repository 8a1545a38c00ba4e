// Which agent process had which session id, kept in `<home>/session-ids.json` (0600): the same
// process (its pid and start time) gets its id back after a restart of the core or of the whole
// daemon, so `accept-all --session`, `bind` and `traffic` in scripts keep working and the
// history names sessions that exist. It also says which agents were connected when Patchbay
// last stopped (or died): those that run on without coming back are listed as not reconnected.
import { join } from 'node:path';
import { z } from 'zod';
import type { Dialect } from '../api/types.ts';
import { HOME_FILES } from '../fs/home-files.ts';
import { readPrivateFile, writePrivateFile } from '../fs/private-file.ts';

/** The most processes remembered; the longest unseen go first. */
export const MAX_KNOWN = 500;
const MAX_BYTES = 1024 * 1024;
/** Writes wait this long for more changes (agents connect in bursts). */
const WRITE_DELAY_MS = 200;

const knownSchema = z.object({
  id: z.string().regex(/^s\d+$/),
  pid: z.number().int().positive(),
  startedAt: z.number(),
  kind: z.enum(['pi', 'claude']),
  cwd: z.string().nullable(),
  clientName: z.string().nullable(),
  /** Connected to the door when last written (a stop leaves it true: it had been connected). */
  connected: z.boolean(),
  /** When it was last seen connected. */
  seenAt: z.number(),
});
const fileSchema = z.object({ version: z.literal(1), sessions: z.array(knownSchema) });

export type KnownSession = z.infer<typeof knownSchema>;

export interface AgentFacts {
  id: string;
  dialect: Dialect;
  process: { pid: number; startedAt: number | null; cwd: string | null } | null;
  clientInfo: { name: string } | null;
}

export class SessionIds {
  private timer: NodeJS.Timeout | null = null;
  private writes: Promise<void> = Promise.resolve();
  private frozen = false;

  private constructor(
    private readonly path: string,
    private readonly known: Map<string, KnownSession>,
    private readonly log: (message: string) => void,
    private readonly now: () => number,
  ) {}

  static async open(home: string, log: (message: string) => void, now: () => number = Date.now): Promise<SessionIds> {
    const path = join(home, HOME_FILES.sessionIds);
    const known = new Map<string, KnownSession>();
    try {
      const read = await readPrivateFile(path, MAX_BYTES);
      if (read.kind === 'unsafe') log(`${path}: not used because ${read.why}`);
      if (read.kind === 'text') {
        const parsed = fileSchema.safeParse(JSON.parse(read.text));
        if (parsed.success) for (const s of parsed.data.sessions) known.set(keyOf(s.pid, s.startedAt), s);
        else log(`${path}: not a list of sessions; ignored`);
      }
    } catch (err) {
      log(`${path} could not be read: ${(err as Error).message}`);
    }
    return new SessionIds(path, known, log, now);
  }

  /** The id this process had before, if it had one. */
  idFor(pid: number, startedAt: number | null): string | null {
    return startedAt === null ? null : (this.known.get(keyOf(pid, startedAt))?.id ?? null);
  }

  /** The highest `sN` remembered, so new ids never reuse one. */
  lastNumber(): number {
    let max = 0;
    for (const s of this.known.values()) max = Math.max(max, Number(s.id.slice(1)));
    return max;
  }

  /** An agent at the door, identified: its id is its process's from now on. */
  connected(session: AgentFacts): void {
    const p = session.process;
    if (!p || p.startedAt === null || this.frozen) return;
    const key = keyOf(p.pid, p.startedAt);
    this.known.delete(key); // newest last, for the bound
    this.known.set(key, {
      id: session.id,
      pid: p.pid,
      startedAt: p.startedAt,
      kind: session.dialect,
      cwd: p.cwd,
      clientName: session.clientInfo?.name ?? null,
      connected: true,
      seenAt: this.now(),
    });
    while (this.known.size > MAX_KNOWN) this.known.delete(this.known.keys().next().value!);
    this.schedule();
  }

  /** The agent left by itself (Patchbay stopping does not count: see freeze). */
  disconnected(session: AgentFacts): void {
    const p = session.process;
    if (!p || p.startedAt === null || this.frozen) return;
    const entry = this.known.get(keyOf(p.pid, p.startedAt));
    if (!entry || entry.id !== session.id) return;
    entry.connected = false;
    entry.seenAt = this.now();
    this.schedule();
  }

  /** Agents that were connected when Patchbay last stopped or died (and every one connected now). */
  wereConnected(): KnownSession[] {
    return [...this.known.values()].filter((s) => s.connected);
  }

  /** Patchbay stops: the agents still connected stay marked so (they had been connected), and the file is written. */
  async freeze(): Promise<void> {
    const stoppedAt = this.now();
    for (const s of this.known.values()) if (s.connected) s.seenAt = stoppedAt;
    this.frozen = true;
    this.flush();
    await this.writes;
  }

  async close(): Promise<void> {
    this.flush();
    await this.writes;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), WRITE_DELAY_MS);
    this.timer.unref();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const text = `${JSON.stringify({ version: 1, sessions: [...this.known.values()] })}\n`;
    this.writes = this.writes.then(() => writePrivateFile(this.path, text)).catch((err: Error) => this.log(`${this.path}: ${err.message}`));
  }
}

function keyOf(pid: number, startedAt: number | null): string {
  return `${pid}@${startedAt ?? '?'}`;
}

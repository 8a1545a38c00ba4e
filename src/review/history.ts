// Decided diffs, kept so a person can open any recent decision, across restarts (DESIGN §7).
// `<home>/history/index.json` lists the decisions, newest first; each diff's contents live in
// `<home>/history/<id>.json`, read only when it is opened. Bounded by count and by bytes, the
// index included: the names in it are an agent's to choose.
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { DecisionRecord, DiffDetail, DiffSummary } from '../api/types.ts';
import { readBounded } from '../fs/bounded-read.ts';
import { writePrivateFile } from '../fs/private-file.ts';
import { encodeJson } from '../protocol/lazy-json.ts';
import { MAX_PATH_BYTES, MAX_TAB_NAME_BYTES } from './diff-limits.ts';
import { diffTextsSize, textOf, type HeldText } from './held-text.ts';
import type { SettledDiff } from './inbox.ts';
import { HOME_FILES } from '../fs/home-files.ts';

export const HISTORY_DIR = HOME_FILES.history;
const INDEX_FILE = 'index.json';

export interface HistoryLimits {
  /** Decisions listed. */
  entries: number;
  /** Contents kept on disk, all diffs together; the oldest lose theirs first. */
  bytes: number;
  /**
   * One diff's contents (proposal, original and result together, in characters, or bytes where
   * they are still held as bytes) above which they are not kept: serialising and writing tens
   * of MiB after every huge edit would slow the relay for a history entry nobody is likely to open.
   */
  diffChars: number;
}

/** Short names: ids, the agent's client name (cut to 200 where it is read). */
const NAME_CHARS = 256;

const decisionSchema = z.object({
  id: z.string().regex(/^d\d+$/),
  sessionId: z.string().max(NAME_CHARS),
  path: z.string().max(MAX_PATH_BYTES),
  outcome: z.enum(['accepted', 'rejected', 'withdrawn', 'interrupted']),
  by: z.enum(['editor', 'patchbay', 'agent', 'shutdown', 'crash']),
  at: z.number(),
  edited: z.boolean(),
  changes: z.object({ total: z.number(), accepted: z.array(z.number()), rejected: z.array(z.number()) }).optional(),
  reason: z.string().optional(),
  told: z.string().optional(),
  tool: z.enum(['write', 'edit', 'other']),
  editorId: z.string().max(NAME_CHARS).nullable(),
  agent: z.string().max(NAME_CHARS),
  remote: z.object({ name: z.string().max(NAME_CHARS), path: z.string().max(MAX_PATH_BYTES), mapped: z.boolean() }).optional(),
});

const entrySchema = z.object({
  record: decisionSchema,
  tabName: z.string().max(MAX_TAB_NAME_BYTES),
  createdAt: z.number(),
  isNew: z.boolean(),
  tooLarge: z.boolean(),
  /** Size of its contents file; 0 when its contents were not kept. */
  bytes: z.number().int().min(0),
  /** Why its contents are not kept (absent while they are). */
  dropped: z.enum(['too-large', 'over-budget', 'interrupted']).optional(),
});

/** Entries are checked one by one: one bad entry (a name over its cap) is dropped, not the history. */
const indexSchema = z.object({ version: z.literal(1), entries: z.array(z.unknown()) });
const contentsSchema = z.object({ oldContents: z.string().nullable(), newContents: z.string(), finalContents: z.string().nullable() });

type Entry = z.infer<typeof entrySchema>;

function idNumber(id: string): number {
  return Number(id.slice(1));
}

export class DiffHistory {
  /** Newest first. */
  private entries: Entry[];
  private writes: Promise<void> = Promise.resolve();
  private readonly indexJson = new EntryTexts();
  private readonly dir: string;

  private constructor(
    home: string,
    entries: Entry[],
    private readonly limits: HistoryLimits,
    private readonly log: (message: string) => void,
  ) {
    this.dir = join(home, HISTORY_DIR);
    this.entries = entries;
  }

  /**
   * Reads the index (a missing one is an empty history; an unreadable one, or one over the
   * byte budget, is reported and set aside; entries that do not fit their caps are dropped).
   */
  static async open(home: string, limits: HistoryLimits, log: (message: string) => void): Promise<DiffHistory> {
    const dir = join(home, HISTORY_DIR);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, INDEX_FILE);
    let entries: Entry[] = [];
    try {
      entries = await readIndex(path, limits.bytes, log);
    } catch (err) {
      const aside = `${path}.unreadable-${Date.now()}`;
      log(`history ${path} could not be read (${(err as Error).message}); moved to ${aside}, starting an empty history`);
      await rename(path, aside).catch(() => {});
    }
    const history = new DiffHistory(home, entries.slice(0, limits.entries), limits, log);
    // What an older Patchbay kept over today's budget is trimmed now, not at the next decision.
    history.queue(async () => {
      await history.trim();
      await history.removeStrays();
    });
    return history;
  }

  /** The decisions, newest first. */
  records(): DecisionRecord[] {
    return this.entries.map((e) => e.record);
  }

  /** The highest diff number used, so a new daemon's ids go on from there. */
  lastId(): number {
    return this.entries.reduce((max, e) => Math.max(max, idNumber(e.record.id)), 0);
  }

  /** The highest door session number (`sN`) the listed decisions name, so a new run's sessions are not mistaken for them. */
  lastSessionNumber(): number {
    return this.entries.reduce((max, e) => Math.max(max, /^s\d+$/.test(e.record.sessionId) ? Number(e.record.sessionId.slice(1)) : 0), 0);
  }

  /** Records a decided diff (the list at once, its files in the background). */
  add(decided: SettledDiff): void {
    const record = decided.decision;
    if (!record) throw new Error(`history: diff ${decided.id} is not decided`);
    const entry: Entry = { record, tabName: decided.tabName, createdAt: decided.createdAt, isNew: decided.isNew, tooLarge: decided.tooLarge, bytes: 0 };
    this.entries = [entry, ...this.entries.filter((e) => e.record.id !== record.id)];
    const { oldContents, newContents, finalContents } = decided;
    // Only contents that will be kept are held until their turn in the queue.
    const texts = diffTextsSize(decided) <= this.limits.diffChars ? { oldContents, newContents, finalContents } : null;
    // After the agent's answer has been written: serialising is not on its way.
    this.queue(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      // Newer decisions may have pushed it out of the list before its turn came.
      const listed = this.entries.slice(0, this.limits.entries).includes(entry);
      const file = texts !== null && listed ? contentsFile(texts) : null;
      // Written privately and atomically: a reader sees the old file or the new one.
      if (file !== null && file.length <= this.limits.bytes) {
        await writePrivateFile(this.contentsPath(record.id), file);
        entry.bytes = file.length;
      } else if (listed) entry.dropped = 'too-large';
      await this.trim();
    });
  }

  /**
   * Diffs a crash cut off (src/review/pending-log.ts): listed as interrupted, newest first, with
   * no contents (they are never written to disk while pending).
   */
  addInterrupted(records: readonly DecisionRecord[], pending: readonly { id: string; tabName: string; createdAt: number }[]): void {
    const entries = records.map((record): Entry => {
      const was = pending.find((p) => p.id === record.id);
      return { record, tabName: was?.tabName ?? '', createdAt: was?.createdAt ?? record.at, isNew: false, tooLarge: false, bytes: 0, dropped: 'interrupted' };
    });
    const ids = new Set(records.map((r) => r.id));
    this.entries = [...entries, ...this.entries.filter((e) => !ids.has(e.record.id))];
    this.queue(() => this.trim());
  }

  /** A decided diff with what was proposed and what was written; undefined when it is not in the history. */
  async detail(id: string): Promise<DiffDetail | undefined> {
    const entry = this.entries.find((e) => e.record.id === id);
    if (!entry) return undefined;
    await this.writes; // its file may still be on its way
    const { record } = entry;
    const base = {
      id,
      sessionId: record.sessionId,
      editorId: record.editorId,
      tool: record.tool,
      path: record.path,
      tabName: entry.tabName,
      status: record.outcome,
      createdAt: entry.createdAt,
      isNew: entry.isNew,
      tooLarge: entry.tooLarge,
      inEditor: false,
      ...(record.remote ? { remote: record.remote } : {}),
      decision: record,
    } satisfies DiffSummary & { decision: DecisionRecord };
    if (entry.bytes === 0) {
      const why =
        entry.dropped === 'over-budget'
          ? 'removed to keep the history within its size limit (newer decisions kept theirs)'
          : entry.dropped === 'interrupted'
            ? 'Patchbay stopped unexpectedly while it waited, and pending contents are not written to disk (look at the file itself)'
            : 'too large to keep in the history';
      return { ...base, oldContents: null, newContents: '', finalContents: null, contentsNotKept: why };
    }
    try {
      const read = await readBounded(this.contentsPath(id), entry.bytes);
      if (read.kind !== 'bytes') throw new Error(read.kind === 'refused' ? read.why : `it is ${read.kind}`);
      const contents = contentsSchema.parse(JSON.parse(read.bytes.toString('utf8')));
      return { ...base, ...contents };
    } catch (err) {
      return { ...base, oldContents: null, newContents: '', finalContents: null, contentsNotKept: `could not be read: ${(err as Error).message}` };
    }
  }

  /** Waits for every write to land. */
  async close(): Promise<void> {
    await this.writes;
  }

  private contentsPath(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  private queue(step: () => Promise<void>): void {
    this.writes = this.writes.then(step).catch((err: Error) => this.log(`history ${this.dir}: ${err.message}`));
  }

  /**
   * Drops what is over the limits, then writes the index. The index counts against the byte
   * budget too: contents go first (oldest first), then, while the index alone is over, the
   * oldest entries.
   */
  private async trim(): Promise<void> {
    const dropped = this.entries.slice(this.limits.entries);
    this.entries = this.entries.slice(0, this.limits.entries);
    const sizes = this.entries.map((e) => Buffer.byteLength(this.indexJson.of(e)) + 1);
    let total = INDEX_OVERHEAD + sizes.reduce((sum, n) => sum + n, 0) + this.entries.reduce((sum, e) => sum + e.bytes, 0);
    for (let i = this.entries.length - 1; i >= 0 && total > this.limits.bytes; i--) {
      const entry = this.entries[i]!;
      if (entry.bytes === 0) continue;
      total -= entry.bytes;
      entry.bytes = 0;
      entry.dropped = 'over-budget';
      dropped.push(entry);
    }
    while (this.entries.length > 0 && total > this.limits.bytes) {
      dropped.push(this.entries.pop()!);
      total -= sizes.pop()!;
    }
    // JSON.stringify({ version: 1, entries }), from each entry's text made once.
    const index = `{"version":1,"entries":[${this.entries.map((e) => this.indexJson.of(e)).join(',')}]}\n`;
    await writePrivateFile(join(this.dir, INDEX_FILE), index);
    for (const entry of dropped) await rm(this.contentsPath(entry.record.id), { force: true });
  }

  /** Contents files no entry refers to (a crash between two writes) are removed. */
  private async removeStrays(): Promise<void> {
    const kept = new Set(this.entries.filter((e) => e.bytes > 0).map((e) => `${e.record.id}.json`));
    for (const name of await readdir(this.dir)) {
      if (name !== INDEX_FILE && (name.endsWith('.tmp') || (/^d\d+\.json$/.test(name) && !kept.has(name)))) {
        await rm(join(this.dir, name), { force: true });
      }
    }
  }
}

/** `{"version":1,"entries":[` and `]}` and a newline. */
const INDEX_OVERHEAD = 32;

/**
 * Each entry's JSON in the index, made once rather than at every decision (the index is written
 * whole each time, and measured for its budget): after an entry is listed only its `bytes` and
 * `dropped` change, and then its text is made again.
 */
class EntryTexts {
  private readonly made = new WeakMap<Entry, { bytes: number; dropped: Entry['dropped']; json: string }>();

  of(entry: Entry): string {
    const known = this.made.get(entry);
    if (known !== undefined && known.bytes === entry.bytes && known.dropped === entry.dropped) return known.json;
    const json = JSON.stringify(entry);
    this.made.set(entry, { bytes: entry.bytes, dropped: entry.dropped, json });
    return json;
  }
}

/** The entries of the index at `path`; a missing index is empty. Throws when it cannot be used at all. */
async function readIndex(path: string, maxBytes: number, log: (message: string) => void): Promise<Entry[]> {
  const read = await readBounded(path, maxBytes);
  if (read.kind === 'missing') return [];
  if (read.kind === 'refused') throw new Error(read.why);
  if (read.kind === 'too-large') throw new Error(`it is larger than the history's budget of ${maxBytes} bytes`);
  const parsed = indexSchema.safeParse(JSON.parse(read.bytes.toString('utf8')));
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'not a history index');
  const entries: Entry[] = [];
  for (const value of parsed.data.entries) {
    const entry = entrySchema.safeParse(value);
    if (entry.success) entries.push(entry.data);
  }
  const left = parsed.data.entries.length - entries.length;
  if (left > 0) log(`history ${path}: ${left} entr${left === 1 ? 'y' : 'ies'} dropped (a name over its cap, or not an entry)`);
  return entries;
}

/** A contents file: each text written as it is held (a proposal's JSON bytes are not decoded). */
function contentsFile(texts: { oldContents: HeldText | null; newContents: HeldText; finalContents: HeldText | null }): Buffer {
  // A file's bytes are the one kind of text JSON cannot hold as is.
  const asJson = (text: HeldText | null): unknown => (Buffer.isBuffer(text) ? textOf(text) : text);
  return encodeJson({ oldContents: asJson(texts.oldContents), newContents: asJson(texts.newContents), finalContents: asJson(texts.finalContents) });
}

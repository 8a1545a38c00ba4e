// Decided diffs, kept so a person can open any recent decision, across restarts (DESIGN §7).
// `<home>/history/index.json` lists the decisions, newest first; each diff's contents live in
// `<home>/history/<id>.json`, read only when it is opened. Bounded by count and by bytes, the
// index included: the names in it are an agent's to choose.
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { DecisionRecord, DiffDetail, DiffSummary, NumberedChange } from '../api/types.ts';
import { readBounded } from '../fs/bounded-read.ts';
import { writePrivateFile } from '../fs/private-file.ts';
import { encodeJson, LazyText, parseLazily } from '../protocol/lazy-json.ts';
import { MAX_PATH_BYTES, MAX_TAB_NAME_BYTES } from './diff-limits.ts';
import { diffTextsSize, textOf, type HeldText } from './held-text.ts';
import type { SettledDiff } from './inbox.ts';
import { HOME_FILES } from '../fs/home-files.ts';

export const HISTORY_DIR = HOME_FILES.history;
/** Texts from this size on are sent on as the bytes of the contents file (detailForJson). */
const LAZY_TEXT_BYTES = 64 * 1024;
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

/** Short names: ids, the agent's client name (cut to 200 where it is read), a turn's label. */
const NAME_CHARS = 256;
/** A person's words (a reason, a note) are at most 2000 characters (command-schemas.ts). */
const MAX_WORDS = 2000;
/** Notes on one edit. */
const MAX_NOTES = 100;

const statusSchema = z.enum(['pending', 'accepted', 'rejected', 'withdrawn', 'interrupted', 'applied', 'kept', 'undone']);
const changeNumbers = z.array(z.number().int().min(1));
const textSchema = z.string().max(MAX_WORDS);

const decisionSchema = z
  .object({
    id: z.string().regex(/^d\d+$/),
    sessionId: z.string().max(NAME_CHARS),
    path: z.string().max(MAX_PATH_BYTES),
    outcome: z.enum(['accepted', 'rejected', 'withdrawn', 'interrupted', 'applied']),
    /** Absent in an older Patchbay's history: then its outcome. */
    status: statusSchema.optional(),
    by: z.enum(['editor', 'patchbay', 'agent', 'shutdown', 'crash', 'review-after']),
    at: z.number(),
    edited: z.boolean(),
    changes: z.object({ total: z.number(), accepted: z.array(z.number()), rejected: z.array(z.number()) }).optional(),
    reason: z.string().optional(),
    told: z.string().optional(),
    tool: z.enum(['write', 'edit', 'other']),
    editorId: z.string().max(NAME_CHARS).nullable(),
    agent: z.string().max(NAME_CHARS),
    notes: z.array(z.object({ line: z.number().int().min(1), text: textSchema })).max(MAX_NOTES).optional(),
    turn: z.object({ key: z.string().max(NAME_CHARS), label: z.string().max(NAME_CHARS), startedAt: z.number() }).optional(),
    undone: changeNumbers.optional(),
    reviewedAt: z.number().optional(),
    afterwards: z.object({ told: z.string(), heard: z.enum(['steered', 'diagnostics', 'not connected']) }).optional(),
    remote: z.object({ name: z.string().max(NAME_CHARS), path: z.string().max(MAX_PATH_BYTES), mapped: z.boolean() }).optional(),
  })
  .transform(({ status, ...record }): DecisionRecord => ({ ...record, status: status ?? record.outcome }));

const numberedChangeSchema = z.object({
  number: z.number().int().min(1),
  oldStart: z.number().int().min(0),
  oldLines: z.number().int().min(0),
  newStart: z.number().int().min(0),
  newLines: z.number().int().min(0),
});

const entrySchema = z.object({
  record: decisionSchema,
  tabName: z.string().max(MAX_TAB_NAME_BYTES),
  createdAt: z.number(),
  isNew: z.boolean(),
  tooLarge: z.boolean(),
  unreadable: z.string().max(1000).optional(),
  /** Size of its contents file; 0 when its contents were not kept. */
  bytes: z.number().int().min(0),
  /** Why its contents are not kept (absent while they are). */
  dropped: z.enum(['too-large', 'over-budget', 'interrupted']).optional(),
  /** An applied edit's changes, numbered as `diffs show` numbers them (listed while it waits for review). */
  changes: z.array(numberedChangeSchema).optional(),
});

/** Entries are checked one by one: one bad entry (a name over its cap) is dropped, not the history. */
const indexSchema = z.object({ version: z.literal(1), entries: z.array(z.unknown()) });
/**
 * An applied edit's contents file also holds its entry, so that it is whole by itself: written (and
 * synced) before the index and before the agent hears anything, it survives a crash between the two.
 */
const contentsSchema = z.object({
  oldContents: z.string().nullable(),
  newContents: z.string(),
  finalContents: z.string().nullable(),
  entry: z.unknown().optional(),
});

type Entry = z.infer<typeof entrySchema>;

function idNumber(id: string): number {
  return Number(id.slice(1));
}

/** An applied edit waits for review: it is kept whatever the limits say until it is kept or undone. */
function waitsForReview(entry: Entry): boolean {
  return entry.record.status === 'applied';
}

/** The first `count` entries, and every applied one after them. */
function withinCount(entries: readonly Entry[], count: number): { kept: Entry[]; dropped: Entry[] } {
  const kept: Entry[] = [];
  const dropped: Entry[] = [];
  for (const entry of entries) (kept.length < count || waitsForReview(entry) ? kept : dropped).push(entry);
  return { kept, dropped };
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
   * Applied edits whose contents file was written but not yet listed (a crash between the two)
   * are listed again.
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
    const recovered = await recoverApplied(dir, entries, limits.bytes, log);
    // The index's order stands (newest first); a recovered entry goes where its time puts it.
    const all = [...entries];
    for (const entry of recovered) {
      const at = all.findIndex((e) => e.record.at < entry.record.at);
      all.splice(at < 0 ? all.length : at, 0, entry);
    }
    const history = new DiffHistory(home, withinCount(all, limits.entries).kept, limits, log);
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

  /** One decision, if it is listed. */
  record(id: string): DecisionRecord | undefined {
    return this.entries.find((e) => e.record.id === id)?.record;
  }

  /** Applied edits waiting for review, oldest first, as the inbox lists what waits. */
  applied(): DiffSummary[] {
    return this.entries
      .filter(waitsForReview)
      .reverse()
      .map((entry) => ({ ...summaryOf(entry), ...(entry.changes ? { changes: entry.changes } : {}) }));
  }

  /** What applied edits hold on disk together (their contents are kept whatever the budget). */
  appliedBytes(): number {
    return this.entries.filter(waitsForReview).reduce((sum, e) => sum + e.bytes, 0);
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
    const entry: Entry = {
      record,
      tabName: decided.tabName,
      createdAt: decided.createdAt,
      isNew: decided.isNew,
      tooLarge: decided.tooLarge,
      ...(decided.unreadable !== undefined ? { unreadable: decided.unreadable.slice(0, 1000) } : {}),
      bytes: 0,
    };
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
   * Records an edit applied at once (review after): its contents file (whole by itself), then the
   * index, both synced; resolves once both are on disk, before the agent may be told anything.
   * Throws when they could not be written.
   */
  addApplied(decided: SettledDiff, changes: NumberedChange[]): Promise<void> {
    const record = decided.decision;
    if (!record || record.status !== 'applied') throw new Error(`history: diff ${decided.id} is not an applied edit`);
    const entry: Entry = { record, tabName: decided.tabName, createdAt: decided.createdAt, isNew: decided.isNew, tooLarge: false, bytes: 0, changes };
    const file = contentsFile({ oldContents: decided.oldContents, newContents: decided.newContents, finalContents: null }, entry);
    entry.bytes = file.length;
    let failed: Error | null = null;
    const done = this.queue(async () => {
      try {
        await writePrivateFile(this.contentsPath(record.id), file, { sync: true });
        this.entries = [entry, ...this.entries.filter((e) => e.record.id !== record.id)];
        await this.writeIndex({ sync: true });
      } catch (err) {
        failed = err as Error;
        this.entries = this.entries.filter((e) => e !== entry);
        await rm(this.contentsPath(record.id), { force: true });
      }
    });
    return done.then(() => {
      if (failed !== null) throw failed;
    });
  }

  /** Changes one decision's record (kept, undone…); resolves once the index says so on disk. */
  update(id: string, change: (record: DecisionRecord) => DecisionRecord): { record: DecisionRecord; written: Promise<void> } {
    const at = this.entries.findIndex((e) => e.record.id === id);
    if (at < 0) throw new Error(`history: no decision ${id}`);
    const old = this.entries[at]!;
    // A new entry object: its JSON in the index is made again.
    const entry: Entry = { ...old, record: change(old.record) };
    if (!waitsForReview(entry)) delete entry.changes;
    this.entries = this.entries.map((e, i) => (i === at ? entry : e));
    return { record: entry.record, written: this.queue(() => this.trim({ sync: true })) };
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
    if (!this.entries.some((e) => e.record.id === id)) return undefined;
    await this.writes; // its file may still be on its way
    const entry = this.entries.find((e) => e.record.id === id);
    if (!entry) return undefined;
    const base = { ...summaryOf(entry), decision: entry.record } satisfies DiffSummary & { decision: DecisionRecord };
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
      const { oldContents, newContents, finalContents } = await readContents(this.contentsPath(id), entry.bytes);
      // An applied edit wrote its proposal.
      return { ...base, oldContents, newContents, finalContents: entry.record.outcome === 'applied' ? newContents : finalContents };
    } catch (err) {
      return { ...base, oldContents: null, newContents: '', finalContents: null, contentsNotKept: `could not be read: ${(err as Error).message}` };
    }
  }

  /**
   * A decided diff as JSON will carry it: its texts still the JSON bytes of its contents file
   * (where they are well-formed JSON strings), so that opening a big one decodes nothing.
   */
  async detailForJson(id: string): Promise<unknown> {
    const entry = this.entries.find((e) => e.record.id === id);
    if (!entry || entry.bytes === 0) return this.detail(id);
    await this.writes;
    const current = this.entries.find((e) => e.record.id === id);
    if (!current || current.bytes === 0) return this.detail(id);
    const read = await readBounded(this.contentsPath(id), current.bytes).catch(() => null);
    const contents = read?.kind === 'bytes' ? parseLazily(read.bytes, LAZY_TEXT_BYTES)?.value : undefined;
    const fields = typeof contents === 'object' && contents !== null ? (contents as Record<string, unknown>) : null;
    const text = (v: unknown): boolean => typeof v === 'string' || (v instanceof LazyText && v.wellFormed());
    const ok = fields !== null && text(fields.newContents) && (fields.oldContents === null || text(fields.oldContents)) && (fields.finalContents === null || text(fields.finalContents));
    if (!ok) return this.detail(id);
    const base = { ...summaryOf(current), decision: current.record };
    return {
      ...base,
      oldContents: fields.oldContents,
      newContents: fields.newContents,
      finalContents: current.record.outcome === 'applied' ? fields.newContents : fields.finalContents,
    };
  }

  /** Waits for every write to land. */
  async close(): Promise<void> {
    await this.writes;
  }

  private contentsPath(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /** Runs `step` after every earlier one; the returned promise settles when it has (its failure is logged). */
  private queue(step: () => Promise<void>): Promise<void> {
    this.writes = this.writes.then(step).catch((err: Error) => this.log(`history ${this.dir}: ${err.message}`));
    return this.writes;
  }

  /**
   * Drops what is over the limits, then writes the index. The index counts against the byte
   * budget too: contents go first (oldest first), then, while the index alone is over, the
   * oldest entries. Applied edits waiting for review keep their place and their contents.
   */
  private async trim(options: { sync?: boolean } = {}): Promise<void> {
    const { kept, dropped } = withinCount(this.entries, this.limits.entries);
    this.entries = kept;
    const sizes = this.entries.map((e) => Buffer.byteLength(this.indexJson.of(e)) + 1);
    let total = INDEX_OVERHEAD + sizes.reduce((sum, n) => sum + n, 0) + this.entries.reduce((sum, e) => sum + e.bytes, 0);
    for (let i = this.entries.length - 1; i >= 0 && total > this.limits.bytes; i--) {
      const entry = this.entries[i]!;
      if (entry.bytes === 0 || waitsForReview(entry)) continue;
      total -= entry.bytes;
      entry.bytes = 0;
      entry.dropped = 'over-budget';
      dropped.push(entry);
    }
    for (let i = this.entries.length - 1; i >= 0 && total > this.limits.bytes; i--) {
      if (waitsForReview(this.entries[i]!)) continue;
      dropped.push(...this.entries.splice(i, 1));
      total -= sizes.splice(i, 1)[0]!;
    }
    await this.writeIndex(options);
    for (const entry of dropped) await rm(this.contentsPath(entry.record.id), { force: true });
  }

  private async writeIndex(options: { sync?: boolean } = {}): Promise<void> {
    // JSON.stringify({ version: 1, entries }), from each entry's text made once.
    const index = `{"version":1,"entries":[${this.entries.map((e) => this.indexJson.of(e)).join(',')}]}\n`;
    await writePrivateFile(join(this.dir, INDEX_FILE), index, options);
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

function summaryOf(entry: Entry): DiffSummary {
  const { record } = entry;
  return {
    id: record.id,
    sessionId: record.sessionId,
    editorId: record.editorId,
    tool: record.tool,
    path: record.path,
    tabName: entry.tabName,
    status: record.status,
    createdAt: entry.createdAt,
    isNew: entry.isNew,
    tooLarge: entry.tooLarge,
    ...(entry.unreadable !== undefined ? { unreadable: entry.unreadable } : {}),
    inEditor: false,
    ...(record.undone ? { undone: record.undone } : {}),
    ...(record.turn ? { turn: record.turn } : {}),
    ...(record.remote ? { remote: record.remote } : {}),
  };
}

async function readContents(path: string, bytes: number): Promise<z.infer<typeof contentsSchema>> {
  const read = await readBounded(path, bytes);
  if (read.kind !== 'bytes') throw new Error(read.kind === 'refused' ? read.why : `it is ${read.kind}`);
  return contentsSchema.parse(JSON.parse(read.bytes.toString('utf8')));
}

/** Applied edits whose contents file is on disk but not in the index: listed again from the entry the file holds. */
async function recoverApplied(dir: string, listed: readonly Entry[], maxBytes: number, log: (message: string) => void): Promise<Entry[]> {
  const known = new Set(listed.map((e) => `${e.record.id}.json`));
  const found: Entry[] = [];
  for (const name of await readdir(dir)) {
    if (!/^d\d+\.json$/.test(name) || known.has(name)) continue;
    try {
      const read = await readBounded(join(dir, name), maxBytes);
      if (read.kind !== 'bytes') continue;
      const entry = entrySchema.safeParse(contentsSchema.parse(JSON.parse(read.bytes.toString('utf8'))).entry);
      if (!entry.success || !waitsForReview(entry.data) || `${entry.data.record.id}.json` !== name) continue;
      found.push({ ...entry.data, bytes: read.bytes.length });
      log(`history: ${entry.data.record.id} (${entry.data.record.path}, applied) was not listed after a crash; listed again`);
    } catch {
      // Not a contents file of an applied edit: removeStrays takes it away.
    }
  }
  return found;
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

/** A contents file: each text written as it is held (a proposal's JSON bytes are not decoded); an applied edit's holds its entry too. */
function contentsFile(texts: { oldContents: HeldText | null; newContents: HeldText; finalContents: HeldText | null }, entry?: Entry): Buffer {
  // A file's bytes are the one kind of text JSON cannot hold as is.
  const asJson = (text: HeldText | null): unknown => (Buffer.isBuffer(text) ? textOf(text) : text);
  // In ASCII, as a browser is sent it (asciiJson): opening it later sends the file as it is.
  return encodeJson(
    {
      oldContents: asJson(texts.oldContents),
      newContents: asJson(texts.newContents),
      finalContents: asJson(texts.finalContents),
      ...(entry ? { entry } : {}),
    },
    { ascii: true },
  );
}

// Reviewing edits after they were written (DESIGN §9b): Keep marks an applied edit reviewed; Undo
// takes chosen changes of an applied or accepted edit back in the file as it is now (revert.ts),
// all or nothing per command, and the agent is told where it can hear it. Works from the history,
// so any edit whose texts it kept can be undone, at any later time.
import { HubError, type DecisionRecord, type DiffDetail, type LineNote } from '../api/types.ts';
import { readBounded } from '../fs/bounded-read.ts';
import { rewriteFile, RewriteError } from '../fs/rewrite-file.ts';
import { changeModel, numbersText } from './changes.ts';
import { notesWords } from './decision-facts.ts';
import type { DiffHistory } from './history.ts';
import { revertChanges } from './revert.ts';

/** How the agent heard of a keep or an undo. */
export type Heard = NonNullable<DecisionRecord['afterwards']>['heard'];

export interface ReviewAfterDeps {
  history: DiffHistory;
  /** Files over this are not rewritten (the review's own cap). */
  maxFileBytes: number;
  now(): number;
  /** Whether a diff is still waiting for a decision before it is written. */
  isPending(id: string): boolean;
  /** Tells the agent of a session what happened to its edit of `path` (a hosted pi is steered). */
  tell(sessionId: string, message: { path: string; text: string; line?: number }): Promise<Heard>;
  /** The history's records changed. */
  changed(): void;
}

interface Words {
  notes?: LineNote[];
  reason?: string;
}

/** One edit to take back: its record, texts, and the changes (0-based) chosen. */
interface Plan {
  record: DecisionRecord;
  before: string;
  written: string;
  isNew: boolean;
  which: number[];
  total: number;
}

const quoted = (text: string): string => `"${text.replace(/\s+/g, ' ').trim()}"`;

export class ReviewAfter {
  constructor(private readonly deps: ReviewAfterDeps) {}

  /** An applied edit is reviewed and stays as it was written. */
  async keep(ids: readonly string[], words: Words = {}): Promise<DecisionRecord[]> {
    const records = ids.map((id) => this.recordOf(id));
    for (const record of records) {
      if (record.status !== 'applied') throw new HubError(`${record.id} is ${statusWords(record)}: only an applied edit (reviewed after) is kept`, 'conflict');
    }
    const kept: DecisionRecord[] = [];
    for (const record of records) {
      const said = await this.words(record, words, `Patchbay: the person reviewed your edit of ${record.path} and kept it.`);
      const afterwards = said === null ? undefined : { told: said.text, heard: await this.deps.tell(record.sessionId, said) };
      kept.push(
        await this.update(record.id, (r) => ({
          ...r,
          status: 'kept',
          reviewedAt: this.deps.now(),
          ...wordsOf(r, words),
          ...(afterwards ? { afterwards } : {}),
        })),
      );
    }
    return kept;
  }

  /**
   * Takes back `changes` (1-based; all that are left by default) of one edit, or every change of
   * several (newest first, so an edit made on top of another goes first). All or nothing: when any
   * change cannot be taken back, no file is touched and the refusal names each one.
   */
  async undo(ids: readonly string[], changes?: readonly number[], words: Words = {}): Promise<DecisionRecord[]> {
    if (changes !== undefined && ids.length !== 1) throw new HubError('changes are chosen for one edit at a time', 'invalid');
    const plans: Plan[] = [];
    for (const id of ids) plans.push(await this.plan(id, changes));
    plans.sort((a, b) => b.record.at - a.record.at);
    const byPath = new Map<string, Plan[]>();
    for (const plan of plans) byPath.set(plan.record.path, [...(byPath.get(plan.record.path) ?? []), plan]);

    // Everything is worked out first from the files as they are: nothing is written unless all of it can be.
    const problems: string[] = [];
    for (const [path, edits] of byPath) {
      const read = await readBounded(path, this.deps.maxFileBytes).catch((err: Error) => ({ kind: 'refused' as const, why: err.message }));
      if (read.kind !== 'bytes') {
        problems.push(`${path} ${read.kind === 'missing' ? 'does not exist any more' : read.kind === 'too-large' ? `is larger than ${this.deps.maxFileBytes} bytes now` : `cannot be read (${read.why})`}`);
        continue;
      }
      const outcome = revertAll(read.bytes.toString('utf8'), edits);
      if ('conflicts' in outcome) problems.push(...outcome.conflicts);
    }
    if (problems.length > 0) throw new HubError(`nothing was undone, every file is as it was: ${problems.join('; ')}`, 'conflict');

    for (const [path, edits] of byPath) {
      const removeWhenEmpty = edits.every((e) => e.isNew && e.which.length + (e.record.undone?.length ?? 0) === e.total);
      let refused: string | null = null;
      const outcome = await rewriteFile(path, this.deps.maxFileBytes, (text) => {
        const result = revertAll(text, edits);
        if ('conflicts' in result) return { refuse: (refused = result.conflicts.join('; ')) };
        return result.text === '' && removeWhenEmpty ? { remove: true } : { text: result.text };
      }).catch((err: Error) => {
        throw new HubError(err instanceof RewriteError ? err.message : `${path}: ${err.message}`, 'conflict');
      });
      if (outcome.kind === 'refused') throw new HubError(`nothing was undone in ${path}: it changed meanwhile: ${refused ?? outcome.why}`, 'conflict');
    }

    const undone: DecisionRecord[] = [];
    const told = await this.tellUndone(plans, words);
    for (const plan of plans) {
      const all = [...new Set([...(plan.record.undone ?? []), ...plan.which.map((i) => i + 1)])].sort((a, b) => a - b);
      const afterwards = told.get(plan.record.id);
      undone.push(
        await this.update(plan.record.id, (r) => ({
          ...r,
          status: all.length === plan.total ? 'undone' : r.status,
          undone: all,
          reviewedAt: this.deps.now(),
          ...wordsOf(r, words),
          ...(afterwards ? { afterwards } : {}),
        })),
      );
    }
    return undone;
  }

  private recordOf(id: string): DecisionRecord {
    const record = this.deps.history.record(id);
    if (record !== undefined) return record;
    if (this.deps.isPending(id)) throw new HubError(`${id} waits for a decision before it is written: accept or reject it`, 'conflict');
    throw new HubError(`no edit ${id} in the history`, 'not-found');
  }

  private async plan(id: string, changes: readonly number[] | undefined): Promise<Plan> {
    const record = this.recordOf(id);
    if (record.outcome !== 'applied' && record.outcome !== 'accepted') throw new HubError(`${id} was ${record.outcome}: nothing of it was written, so there is nothing to undo`, 'conflict');
    if (record.status === 'undone') throw new HubError(`${id} is undone already`, 'conflict');
    const detail = await this.deps.history.detail(id);
    const texts = detail === undefined ? null : textsOf(detail);
    if (texts === null) throw new HubError(`${id} cannot be undone: ${detail?.contentsNotKept ? `its texts are not kept (${detail.contentsNotKept})` : 'the file before it was too large to keep'}`, 'conflict');
    const total = changeModel(texts.before, texts.written).changes.length;
    const done = new Set(record.undone ?? []);
    const asked = changes === undefined ? undefined : [...new Set(changes)];
    const bad = asked?.filter((n) => n < 1 || n > total) ?? [];
    if (bad.length > 0) throw new HubError(`${id} has ${total} ${total === 1 ? 'change' : 'changes'}; there is no change ${bad.join(', ')}`, 'invalid');
    const again = asked?.filter((n) => done.has(n)) ?? [];
    if (again.length > 0) throw new HubError(`${id}: ${again.length === 1 ? 'change' : 'changes'} ${numbersText(again.map((n) => n - 1))} ${again.length === 1 ? 'is' : 'are'} undone already`, 'conflict');
    const which = (asked ?? Array.from({ length: total }, (_, i) => i + 1).filter((n) => !done.has(n))).map((n) => n - 1);
    return { record, ...texts, which, total };
  }

  /** What the agent is told of a keep with words (null when there are none to say). */
  private async words(record: DecisionRecord, words: Words, what: string): Promise<{ path: string; text: string; line?: number } | null> {
    const reason = words.reason?.trim();
    if (!reason && !(words.notes && words.notes.length > 0)) return null;
    const detail = words.notes?.length ? await this.deps.history.detail(record.id) : undefined;
    const written = detail?.finalContents ?? '';
    const because = `${reason ? ` Their reason: ${quoted(reason)}.` : ''}${notesWords(record.path, written, words.notes)}`;
    return { path: record.path, text: `${what}${because}`, ...(words.notes?.[0] ? { line: words.notes[0].line } : {}) };
  }

  /** One message per session, naming each edit and what of it was taken back. */
  private async tellUndone(plans: readonly Plan[], words: Words): Promise<Map<string, NonNullable<DecisionRecord['afterwards']>>> {
    const told = new Map<string, NonNullable<DecisionRecord['afterwards']>>();
    const bySession = new Map<string, Plan[]>();
    for (const plan of plans) bySession.set(plan.record.sessionId, [...(bySession.get(plan.record.sessionId) ?? []), plan]);
    for (const [sessionId, edits] of bySession) {
      const parts = edits.map((e) =>
        e.which.length === e.total
          ? `your edit of ${e.record.path} (every change: those lines are as they were before it, later edits elsewhere kept)`
          : `${e.which.length === 1 ? 'change' : 'changes'} ${numbersText(e.which)} of ${e.total} of your edit of ${e.record.path} (those lines are as they were before it)`,
      );
      const paths = [...new Set(edits.map((e) => e.record.path))];
      const reason = words.reason?.trim();
      const first = edits[0]!;
      const noted = edits.length === 1 && words.notes?.length ? notesWords(first.record.path, first.written, words.notes) : '';
      const text =
        `Patchbay: the person undid ${parts.join('; ')}. Read ${paths.join(', ')} again before you change ${paths.length === 1 ? 'it' : 'them'} further.` +
        `${reason ? ` Their reason: ${quoted(reason)}.` : ''}${noted}`;
      const heard = await this.deps.tell(sessionId, { path: first.record.path, text });
      for (const e of edits) told.set(e.record.id, { told: text, heard });
    }
    return told;
  }

  private async update(id: string, change: (record: DecisionRecord) => DecisionRecord): Promise<DecisionRecord> {
    const { record, written } = this.deps.history.update(id, change);
    this.deps.changed();
    await written;
    return record;
  }
}

/** The texts an undo needs: the file before the edit and what it wrote; null when they are not kept. */
function textsOf(detail: DiffDetail): { before: string; written: string; isNew: boolean } | null {
  if (detail.contentsNotKept !== undefined || detail.finalContents === null) return null;
  if (detail.isNew) return { before: '', written: detail.finalContents, isNew: true };
  if (detail.oldContents === null || detail.tooLarge) return null;
  return { before: detail.oldContents, written: detail.finalContents, isNew: false };
}

/** `text` with each edit's chosen changes taken back, newest edit first; or every change that cannot be. */
function revertAll(text: string, edits: readonly Plan[]): { text: string } | { conflicts: string[] } {
  let current = text;
  const conflicts: string[] = [];
  for (const edit of edits) {
    const result = revertChanges({ before: edit.before, written: edit.written, current, which: edit.which });
    if (result.ok) current = result.text;
    else conflicts.push(...result.conflicts.map((c) => `${edit.record.id} change ${c.index + 1} of ${edit.total} (${edit.record.path}): ${c.why}`));
  }
  return conflicts.length > 0 ? { conflicts } : { text: current };
}

/** The person's words as the record's own, where the decision had none (an applied edit's): else they are in `afterwards`. */
function wordsOf(record: DecisionRecord, words: Words): Partial<DecisionRecord> {
  const reason = words.reason?.trim();
  return {
    ...(reason && record.reason === undefined ? { reason } : {}),
    ...(words.notes && words.notes.length > 0 && record.notes === undefined ? { notes: words.notes } : {}),
  };
}

function statusWords(record: DecisionRecord): string {
  if (record.status === 'kept') return 'kept already';
  if (record.status === 'undone') return 'undone';
  if (record.status === 'accepted') return 'accepted (reviewed before it was written)';
  return record.status;
}

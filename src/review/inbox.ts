// The review inbox (DESIGN §7): every openDiff waits here until one decision is made.
// A state machine: each transition returns the effects the relay must carry out, so the
// rules are tested without sockets. The first decision wins; later answers are dropped.
import { HubError, type AgentTurn, type DecidedBy, type DecisionRecord, type Dialect, type DiffDetail, type DiffSummary, type LineNote, type RemotePlace, type ReviewRoute } from '../api/types.ts';
import { closesDecidedDiffs, editorTabName } from '../protocol/dialect.ts';
import { textResult, type ToolResult } from '../protocol/mcp.ts';
import { LazyText } from '../protocol/lazy-json.ts';
import { decisionFacts, type DecisionFacts } from './decision-facts.ts';
import { heldAsJson, heldSize, sameBytes, sameText, textOf, type HeldText, type ProposedText } from './held-text.ts';
import type { Original } from './read-original.ts';

export interface NewDiff<R> {
  sessionId: string;
  path: string;
  tabName: string;
  /** As it arrived: decoded only when someone reads it. */
  newContents: ProposedText;
  /** On-disk contents at arrival (see originalRead); null for a new file or one over the size cap. */
  oldContents: HeldText | null;
  isNew: boolean;
  tooLarge: boolean;
  /** Why the on-disk file could not be read (see originalRead). */
  unreadable?: string;
  /** The memory the agent's request holds while the diff waits (its frame's bytes and parsed values). */
  bytes: number;
  /** Its original is still being read (see originalRead): not listed until it is. */
  readingOriginal?: boolean;
  /** The agent as the person knows it (client name or dialect), for the history. */
  agent: string;
  /** How the relay answers the agent (its request id, and whoever waits for the answer). */
  reply: R;
  /** From an agent on a remote; not `mapped`: no local editor is offered it (its path is not a file here). */
  remote?: RemotePlace;
  /** Its folder is reviewed after, but this edit could not be: why it waits all the same. */
  reviewedBefore?: string;
}

interface Diff<R> extends NewDiff<R> {
  id: string;
  tool: DiffSummary['tool'];
  createdAt: number;
  /** The editor the diff is (or was last) offered to; re-offered there when it returns. */
  editorId: string | null;
  /** The tab name it has in that editor (unique per editor). */
  editorTab: string | null;
  inEditor: boolean;
  /** The editor's saved answer is on its way to the agent: no other decision may be made. */
  answering: boolean;
  turn?: AgentTurn;
}

/**
 * `taken`: the proposal's changes the person took (0-based), when they decided change by change;
 * `reason`: their words for the agent; `notes`: theirs on lines of the edit.
 */
export type Decision =
  | { outcome: 'accept'; contents?: string; taken?: number[]; reason?: string; notes?: LineNote[] }
  | { outcome: 'reject'; reason?: string; notes?: LineNote[] };

/** A decision as the inbox settles it: an editor's saved file may still be the bytes it came in. */
type Settlement = Exclude<Decision, { outcome: 'accept' }> | (Omit<Extract<Decision, { outcome: 'accept' }>, 'contents'> & { contents?: ProposedText });

/** A decided diff for the history: its texts still as they were held, decoded there if kept. */
export type SettledDiff = Omit<DiffDetail, 'oldContents' | 'newContents' | 'finalContents'> & {
  oldContents: HeldText | null;
  newContents: ProposedText;
  finalContents: ProposedText | null;
};

/**
 * What the relay must carry out. `R` is its handle for answering the agent; `F` a frame as it
 * arrived, carried through where it can be passed on byte for byte (whole files are big).
 */
export type InboxEffect<R, F = never> =
  /**
   * Answers the agent; `record` is the decision, for the faces.
   * `asSent`: the editor's own answer, when it is exactly what the agent gets.
   */
  | { type: 'reply'; diffId: string; sessionId: string; reply: R; result: ToolResult<ProposedText>; record: DecisionRecord; asSent?: F }
  /**
   * An edit applied at once (review after): it must be recorded, with the file before it, before
   * the reply that follows it goes to the agent.
   */
  | { type: 'record'; diffId: string; applied: SettledDiff }
  /** `asSent`: the agent's request as it arrived, on the first offer (the bridge renames its tab where the editor's differs). */
  | { type: 'offer'; diffId: string; sessionId: string; editorId: string; tabName: string; args: OfferArgs; asSent?: F }
  | { type: 'closeTab'; diffId: string; sessionId: string; editorId: string; tabName: string };

export interface OfferArgs {
  old_file_path: string;
  new_file_path: string;
  new_file_contents: ProposedText;
  tab_name: string;
}

/** What the inbox needs to know about the world; supplied by the relay. */
export interface InboxContext {
  /** The live editor a session is bound to now, or null. */
  boundEditor(sessionId: string): string | null;
  /** An editor's dialect, which decides its tab names and who closes a decided diff (default pi). */
  editorDialect?(editorId: string): Dialect | null;
  route(): ReviewRoute;
  now(): number;
  /** A diff was decided: its whole story, for the history (kept and shown after the fact). */
  settled?(decided: SettledDiff): void;
  /** A diff arrived (after its offer): its facts, for the record of what is pending. */
  arrived?(diff: DiffSummary, agent: string): void;
  /** The agent's turn the session is in now (for grouping what it did), when known. */
  turnOf?(sessionId: string): AgentTurn | null;
}

/**
 * What kind of edit a tab name says: pi-ide names the tool (`pi-write:<id>`); Claude Code's
 * (`✻ [Claude Code] a.ts (998b60) ⧉`) does not, so a file that does not exist yet is a write.
 */
export function toolOf(tabName: string, isNew = false): DiffSummary['tool'] {
  if (tabName.startsWith('pi-write:')) return 'write';
  if (tabName.startsWith('pi-edit:')) return 'edit';
  if (tabName.includes('[Claude Code]')) return isNew ? 'write' : 'edit';
  return 'other';
}

export function fileSaved(contents: ProposedText): ToolResult<ProposedText> {
  return { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: contents }] };
}

export function diffRejected(tabName: string): ToolResult {
  return textResult('DIFF_REJECTED', tabName);
}

export class Inbox<R, F = never> {
  private readonly diffs = new Map<string, Diff<R>>();
  private seq: number;

  /** `lastId`: the highest diff number already used (in the history), so ids never restart. */
  constructor(
    private readonly ctx: InboxContext,
    lastId = 0,
  ) {
    this.seq = lastId;
  }

  /** The diffs a person can see: pending, with their original read. */
  pending(): DiffSummary[] {
    return [...this.diffs.values()].filter((d) => !d.readingOriginal).map(summary);
  }

  /** A pending diff with its texts decoded (a person opens it). */
  get(id: string): DiffDetail | undefined {
    const diff = this.diffs.get(id);
    if (!diff) return undefined;
    let newContents: string;
    try {
      newContents = textOf(diff.newContents);
    } catch (err) {
      throw new HubError(`diff ${id}: the agent's proposal is not a valid JSON string (${(err as Error).message}); reject it`, 'invalid');
    }
    const oldContents = diff.oldContents === null ? null : textOf(diff.oldContents);
    return { ...summary(diff), oldContents, newContents, decision: null, finalContents: null };
  }

  /**
   * A pending diff as JSON will carry it: its proposal still the bytes it came in (when they are a
   * well-formed JSON string), so that opening a big diff decodes and re-encodes nothing.
   */
  getForJson(id: string): (Omit<DiffDetail, 'oldContents' | 'newContents'> & { oldContents: ProposedText | null; newContents: ProposedText }) | undefined {
    const diff = this.diffs.get(id);
    if (!diff) return undefined;
    if (!(diff.newContents instanceof LazyText) || !diff.newContents.wellFormed()) return this.get(id);
    // A big original is encoded once, the first time it is opened, and kept so.
    if (diff.oldContents !== null) {
      const held = heldAsJson(diff.oldContents);
      diff.bytes += heldSize(held) - heldSize(diff.oldContents);
      diff.oldContents = held;
    }
    const old = diff.oldContents;
    const oldContents = old === null ? null : old instanceof LazyText ? old : textOf(old);
    return { ...summary(diff), oldContents, newContents: diff.newContents, decision: null, finalContents: null };
  }

  /**
   * The diff's proposal when `text` is it byte for byte (an editor that saved it unchanged): then
   * it needs no decoding to be trusted, and answering with the proposal itself compares nothing again.
   */
  proposalMatching(id: string, text: ProposedText): ProposedText | undefined {
    const diff = this.diffs.get(id);
    return diff !== undefined && (text === diff.newContents || sameBytes(text, diff.newContents)) ? diff.newContents : undefined;
  }

  /** Memory the pending diffs hold, all sessions together (their requests and originals). */
  heldBytes(): number {
    let n = 0;
    for (const d of this.diffs.values()) n += d.bytes;
    return n;
  }

  /**
   * The diff's original was read (after the diff was offered: reading it is not on the way to
   * the editor). Returns false when the diff was decided meanwhile.
   */
  originalRead(id: string, original: Original): boolean {
    const diff = this.diffs.get(id);
    if (!diff) return false;
    diff.oldContents = original.contents;
    diff.isNew = original.isNew;
    diff.tool = toolOf(diff.tabName, original.isNew);
    diff.tooLarge = original.tooLarge;
    if (original.unreadable !== undefined) diff.unreadable = original.unreadable;
    diff.bytes += heldSize(original.contents);
    diff.readingOriginal = false;
    return true;
  }

  countFor(sessionId: string): number {
    let n = 0;
    for (const d of this.diffs.values()) if (d.sessionId === sessionId) n++;
    return n;
  }

  idsFor(sessionId: string): string[] {
    return [...this.diffs.values()].filter((d) => d.sessionId === sessionId).map((d) => d.id);
  }

  /** A pending diff of this session by its agent-side tab name. */
  findByTab(sessionId: string, tabName: string): string | undefined {
    for (const d of this.diffs.values()) if (d.sessionId === sessionId && d.tabName === tabName) return d.id;
    return undefined;
  }

  /** Which pending diff an editor tab belongs to. */
  findByEditorTab(editorId: string, editorTab: string): string | undefined {
    for (const d of this.diffs.values()) if (d.inEditor && d.editorId === editorId && d.editorTab === editorTab) return d.id;
    return undefined;
  }

  /** `asSent`: the agent's request as it arrived; the first offer carries it. */
  arrive(input: NewDiff<R>, asSent?: F): { id: string; effects: InboxEffect<R, F>[] } {
    const effects: InboxEffect<R, F>[] = [];
    // Like an editor: a second diff with the same tab name replaces the first.
    const previous = this.findByTab(input.sessionId, input.tabName);
    if (previous) effects.push(...this.finish(previous, { outcome: 'reject' }, 'agent'));
    const id = `d${++this.seq}`;
    const turn = this.ctx.turnOf?.(input.sessionId) ?? null;
    const diff: Diff<R> = {
      ...input,
      id,
      tool: toolOf(input.tabName, input.isNew),
      ...(turn ? { turn } : {}),
      createdAt: this.ctx.now(),
      editorId: null,
      editorTab: null,
      inEditor: false,
      answering: false,
    };
    this.diffs.set(id, diff);
    for (const offer of this.offer(diff)) {
      effects.push(offer.type === 'offer' && asSent !== undefined ? { ...offer, asSent } : offer);
    }
    this.ctx.arrived?.(summary(diff), diff.agent);
    return { id, effects };
  }

  /**
   * Review after: the diff is not held. It is answered at once with its own proposal (the agent
   * writes it, as after any FILE_SAVED) and recorded as applied; the `record` effect comes first
   * and must be durable before the `reply` goes, so a crash between them loses nothing.
   */
  applyAtOnce(input: NewDiff<R>): { id: string; record: DecisionRecord; effects: InboxEffect<R, F>[] } {
    const effects: InboxEffect<R, F>[] = [];
    const previous = this.findByTab(input.sessionId, input.tabName);
    if (previous) effects.push(...this.finish(previous, { outcome: 'reject' }, 'agent'));
    const id = `d${++this.seq}`;
    const now = this.ctx.now();
    const tool = toolOf(input.tabName, input.isNew);
    const turn = this.ctx.turnOf?.(input.sessionId) ?? null;
    const record: DecisionRecord = {
      id,
      sessionId: input.sessionId,
      path: input.path,
      outcome: 'applied',
      status: 'applied',
      by: 'review-after',
      at: now,
      edited: false,
      tool,
      editorId: null,
      agent: input.agent,
      ...(turn ? { turn } : {}),
      ...(input.remote ? { remote: input.remote } : {}),
    };
    const applied: SettledDiff = {
      id,
      sessionId: input.sessionId,
      editorId: null,
      tool,
      path: input.path,
      tabName: input.tabName,
      status: 'applied',
      createdAt: now,
      isNew: input.isNew,
      tooLarge: false,
      inEditor: false,
      oldContents: input.oldContents,
      newContents: input.newContents,
      decision: record,
      finalContents: input.newContents,
      ...(turn ? { turn } : {}),
      ...(input.remote ? { remote: input.remote } : {}),
    };
    effects.push({ type: 'record', diffId: id, applied });
    effects.push({ type: 'reply', diffId: id, sessionId: input.sessionId, reply: input.reply, result: fileSaved(input.newContents), record });
    return { id, record, effects };
  }

  /**
   * A diff an earlier core held (a restart or a crash of the core), back under its own id. Not
   * in any editor until one says it still has it (reoffered) or it is offered again, under the
   * same tab name when it goes back to the same editor (an editor replaces a same-named diff).
   */
  restore(input: NewDiff<R>, was: { id: string; createdAt: number; editorId: string | null; editorTab: string | null }, asSent?: F): void {
    this.seq = Math.max(this.seq, Number(was.id.slice(1)) || 0);
    const diff: Diff<R> = {
      ...input,
      id: was.id,
      tool: toolOf(input.tabName),
      createdAt: was.createdAt,
      editorId: was.editorId,
      editorTab: was.editorTab,
      inEditor: false,
      answering: false,
    };
    this.diffs.set(was.id, diff);
    if (asSent !== undefined) this.restoredAsSent.set(was.id, asSent);
    this.ctx.arrived?.(summary(diff), diff.agent);
  }

  /** The agent's request as it arrived, for the first offer of a restored diff. */
  private readonly restoredAsSent = new Map<string, F>();

  /** The editor still has the diff open under `tab` (its link was taken over): it is in the editor again. */
  reoffered(id: string, editorId: string, tab: string): boolean {
    const diff = this.diffs.get(id);
    if (!diff || diff.answering || diff.inEditor || this.tabTaken(editorId, tab)) return false;
    diff.editorId = editorId;
    diff.editorTab = tab;
    diff.inEditor = true;
    return true;
  }

  /** A pending diff's proposal as it is held. */
  proposalOf(id: string): ProposedText | undefined {
    return this.diffs.get(id)?.newContents;
  }

  /** The person decided in Patchbay. Returns null when the diff is no longer pending. */
  decide(id: string, decision: Decision): { record: DecisionRecord; effects: InboxEffect<R, F>[] } | null {
    if (!this.open(id)) return null;
    return this.settle(id, decision, 'patchbay');
  }

  /**
   * The editor answered its openDiff. Late answers (already decided) are dropped. `asSent`: the
   * editor's answer as it arrived; passed on when it is complete (FILE_SAVED with contents).
   */
  editorAnswered(
    id: string,
    editorId: string,
    answer: { saved: true; contents: ProposedText | null } | { saved: false },
    asSent?: F,
  ): InboxEffect<R, F>[] {
    const diff = this.diffs.get(id);
    if (!diff || diff.editorId !== editorId || !diff.inEditor) return [];
    // Its tab stays open until a close_tab, unless the editor closes decided diffs itself.
    diff.inEditor = !closesDecidedDiffs(this.dialectOf(editorId));
    const decision: Settlement = answer.saved
      ? { outcome: 'accept', contents: answer.contents ?? diff.newContents }
      : { outcome: 'reject' };
    const effects = this.finish(id, decision, 'editor');
    if (!answer.saved || answer.contents === null || asSent === undefined) return effects;
    // The editor's answer as sent, unless the agent is to hear what the person kept of its edit.
    return effects.map((e) => (e.type === 'reply' && (e.record.told === undefined || diff.answering) ? { ...e, asSent } : e));
  }

  /**
   * The editor saved the diff and its answer is passed to the agent before the inbox reads it
   * (a whole file: decoding it first would delay the agent). From now until editorAnswered or
   * releaseAnswer nothing else decides the diff. Returns the agent's reply handle, or null
   * when this editor's answer no longer counts (the diff was decided meanwhile).
   */
  claimEditorAnswer(id: string, editorId: string): { sessionId: string; reply: R } | null {
    const diff = this.diffs.get(id);
    if (!diff || diff.editorId !== editorId || !diff.inEditor || diff.answering) return null;
    diff.answering = true;
    return { sessionId: diff.sessionId, reply: diff.reply };
  }

  /** A claimed answer turned out unreadable: the diff is open to decisions again. */
  releaseAnswer(id: string): void {
    const diff = this.diffs.get(id);
    if (diff) diff.answering = false;
  }

  /**
   * The editor did not decide the diff (its link failed, or it answered something else):
   * the diff stays pending in Patchbay and is offered again when the editor is back.
   * Returns whether anything changed.
   */
  offerFailed(id: string, editorId: string): boolean {
    const diff = this.diffs.get(id);
    if (!diff || diff.editorId !== editorId || !diff.inEditor || diff.answering) return false;
    diff.inEditor = false;
    return true;
  }

  /** A session's editor is reachable (bound, connected): offer what it has not seen. */
  editorAvailable(sessionId: string): InboxEffect<R, F>[] {
    const effects: InboxEffect<R, F>[] = [];
    for (const diff of this.diffs.values()) {
      if (diff.sessionId !== sessionId || diff.inEditor || diff.answering) continue;
      // A restored diff goes out as the agent sent it, once (as a new diff's first offer does).
      const asSent = this.restoredAsSent.get(diff.id);
      this.restoredAsSent.delete(diff.id);
      for (const offer of this.offer(diff)) effects.push(offer.type === 'offer' && asSent !== undefined ? { ...offer, asSent } : offer);
    }
    return effects;
  }

  /** The agent went away: its diffs are withdrawn and their editor tabs closed. */
  agentGone(sessionId: string): InboxEffect<R, F>[] {
    return this.idsFor(sessionId).filter((id) => this.open(id)).flatMap((id) => this.finish(id, { outcome: 'reject' }, 'agent', 'withdrawn'));
  }

  /** The agent closed its own diff (close_tab, closeAllDiffTabs): it is withdrawn. */
  withdraw(id: string): InboxEffect<R, F>[] {
    return this.open(id) ? this.finish(id, { outcome: 'reject' }, 'agent', 'withdrawn') : [];
  }

  /** Stop: every pending diff is rejected before any connection closes. */
  shutdown(): InboxEffect<R, F>[] {
    return [...this.diffs.keys()].filter((id) => this.open(id)).flatMap((id) => this.finish(id, { outcome: 'reject' }, 'shutdown'));
  }

  /** Pending and open to a decision (not being answered by its editor). */
  private open(id: string): boolean {
    const diff = this.diffs.get(id);
    return diff !== undefined && !diff.answering;
  }

  private offer(diff: Diff<R>): InboxEffect<R, F>[] {
    if (this.ctx.route() === 'patchbay-only') return [];
    if (diff.remote && !diff.remote.mapped) return [];
    const editorId = this.ctx.boundEditor(diff.sessionId);
    if (!editorId) return [];
    // Back in the same editor, reuse its tab name (its old tab, if still open, is replaced)
    // unless another diff took that name there meanwhile.
    const reuse = diff.editorId === editorId && diff.editorTab !== null && !this.tabTaken(editorId, diff.editorTab);
    const tabName = reuse ? diff.editorTab! : this.uniqueTab(editorId, editorTabName(diff.tabName, diff.path, diff.id, this.dialectOf(editorId)));
    diff.editorId = editorId;
    diff.editorTab = tabName;
    diff.inEditor = true;
    return [
      {
        type: 'offer',
        diffId: diff.id,
        sessionId: diff.sessionId,
        editorId,
        tabName,
        args: { old_file_path: diff.path, new_file_path: diff.path, new_file_contents: diff.newContents, tab_name: tabName },
      },
    ];
  }

  private dialectOf(editorId: string): Dialect {
    return this.ctx.editorDialect?.(editorId) ?? 'pi';
  }

  /** Two sessions may use the same tab name; in one editor that would reject the other's diff. */
  private uniqueTab(editorId: string, tabName: string): string {
    let name = tabName;
    for (let n = 2; this.tabTaken(editorId, name); n++) name = `${tabName} (${n})`;
    return name;
  }

  private tabTaken(editorId: string, editorTab: string): boolean {
    return this.findByEditorTab(editorId, editorTab) !== undefined;
  }

  private finish(id: string, decision: Settlement, by: DecidedBy, outcome?: 'withdrawn'): InboxEffect<R, F>[] {
    return this.settle(id, decision, by, outcome).effects;
  }

  /**
   * What a decision amounts to (changes taken, typing, words for the agent); only a person's or an
   * editor's. The texts are decoded only when what is written differs from the proposal.
   */
  private factsOf(diff: Diff<R>, decision: Settlement, contents: ProposedText, by: DecidedBy): DecisionFacts {
    if (by !== 'patchbay' && by !== 'editor') return { edited: false };
    const accepted = decision.outcome === 'accept';
    const notes = decision.notes && decision.notes.length > 0 ? decision.notes : undefined;
    // Rejected, or written as proposed: decisionFacts reads none of the texts.
    let texts = { original: null as string | null, proposal: '', written: '' };
    if (accepted && differs(contents, diff.newContents)) {
      try {
        const original = diff.isNew ? '' : diff.oldContents === null ? null : textOf(diff.oldContents);
        texts = { original, proposal: textOf(diff.newContents), written: textOf(contents) };
      } catch {
        return { edited: true }; // a proposal that does not decode: changed, and nothing more can be said
      }
    }
    // Notes quote their lines: of what is written, or of the proposal refused.
    let noted: string | undefined;
    if (notes !== undefined) {
      try {
        noted = textOf(accepted ? contents : diff.newContents);
      } catch {
        noted = '';
      }
    }
    const facts = decisionFacts({
      path: diff.path,
      ...texts,
      accepted,
      ...(decision.outcome === 'accept' && decision.taken ? { taken: decision.taken } : {}),
      ...(decision.reason ? { reason: decision.reason } : {}),
      ...(notes !== undefined ? { notes, notedText: noted ?? '' } : {}),
      by: by === 'editor' ? 'editor' : 'person',
    });
    // An editor's answer already passed on (answering) reached the agent as the editor sent it.
    if (diff.answering) delete facts.told;
    return facts;
  }

  /** Ends a pending diff: closes its editor tab, answers the agent, records the decision. */
  private settle(
    id: string,
    decision: Settlement,
    by: DecidedBy,
    outcome?: 'withdrawn',
  ): { record: DecisionRecord; effects: InboxEffect<R, F>[] } {
    const diff = this.diffs.get(id)!;
    this.diffs.delete(id);
    this.restoredAsSent.delete(id);
    const effects: InboxEffect<R, F>[] = [];
    if (diff.inEditor && diff.editorId && diff.editorTab) {
      effects.push({ type: 'closeTab', diffId: id, sessionId: diff.sessionId, editorId: diff.editorId, tabName: diff.editorTab });
    }
    const accepted = decision.outcome === 'accept';
    const contents = accepted ? (decision.contents ?? diff.newContents) : '';
    const facts = this.factsOf(diff, decision, contents, by);
    const status = outcome ?? (accepted ? 'accepted' : 'rejected');
    const record: DecisionRecord = {
      id,
      sessionId: diff.sessionId,
      path: diff.path,
      outcome: status,
      status,
      by,
      at: this.ctx.now(),
      ...facts,
      tool: diff.tool,
      editorId: diff.editorId,
      agent: diff.agent,
      ...(diff.remote ? { remote: diff.remote } : {}),
      ...(diff.turn ? { turn: diff.turn } : {}),
    };
    const result = accepted ? fileSaved(contents) : diffRejected(diff.tabName);
    // After the two items the protocol defines: what the person decided, in words.
    if (facts.told !== undefined) result.content.push({ type: 'text', text: facts.told });
    effects.push({ type: 'reply', diffId: id, sessionId: diff.sessionId, reply: diff.reply, result, record });
    this.ctx.settled?.({
      ...summary(diff),
      status: record.outcome,
      inEditor: false,
      oldContents: diff.oldContents,
      newContents: diff.newContents,
      decision: record,
      finalContents: accepted ? contents : null,
    });
    return { record, effects };
  }
}

/** A text that cannot be decoded (a malformed proposal) differs from any that can. */
function differs(a: ProposedText, b: ProposedText): boolean {
  try {
    return !sameText(a, b);
  } catch {
    return true;
  }
}

function summary<R>(diff: Diff<R>): DiffSummary {
  return {
    id: diff.id,
    sessionId: diff.sessionId,
    editorId: diff.editorId,
    tool: diff.tool,
    path: diff.path,
    tabName: diff.tabName,
    status: 'pending',
    createdAt: diff.createdAt,
    isNew: diff.isNew,
    tooLarge: diff.tooLarge,
    ...(diff.unreadable !== undefined ? { unreadable: diff.unreadable } : {}),
    inEditor: diff.inEditor,
    ...(diff.remote ? { remote: diff.remote } : {}),
    ...(diff.turn ? { turn: diff.turn } : {}),
    ...(diff.reviewedBefore ? { reviewedBefore: diff.reviewedBefore } : {}),
  };
}

// Carries out what the review inbox decides (DESIGN §7): offers diffs to editors, closes their
// tabs, answers agents. The inbox is pure; this is where its effects meet the sockets.
import type { DecisionRecord, DiffSummary, RemotePlace } from '../api/types.ts';
import { HubError } from '../api/types.ts';
import { result, type RpcId, type RpcRequest, type RpcResponse } from '../protocol/jsonrpc.ts';
import { holdsLazyText, LazyText } from '../protocol/lazy-json.ts';
import { resultTexts } from '../protocol/mcp.ts';
import { budgetProblem } from '../review/diff-limits.ts';
import { heldSize, textOf, type ProposedText } from '../review/held-text.ts';
import { diffRejected, type Decision, type Inbox, type InboxEffect, type NewDiff, type OfferArgs, type SettledDiff } from '../review/inbox.ts';
import type { Original } from '../review/read-original.ts';
import { MAX_NOTES } from './review-notes.ts';
import { answer, frameHeld, underId, type Frame, type Reply, type RpcLink } from './rpc-link.ts';
import type { Session } from './session.ts';
import type { OpenDiffArgs } from './tools/open-diff.ts';
import type { HeldDiffs, HeldFacts } from '../review/held-diffs.ts';

/** How a diff's agent is answered: its request id, and whoever waits for that answer. */
export interface AgentReply {
  id: RpcId;
  answered(): void;
}

/**
 * A frame that can be passed on as its bytes (under another id, when it was read lazily): the
 * agent's openDiff, or the editor's FILE_SAVED (`forwarded`: already passed on before the inbox
 * read it).
 */
export type AsSent = { request: RpcRequest; frame: Frame } | { response: RpcResponse; frame: Frame } | { forwarded: true };

export type RelayInbox = Inbox<AgentReply, AsSent>;
type Effect = InboxEffect<AgentReply, AsSent>;

/** What else is known of a diff as it arrives: the remote it came from, why it waits though its folder is reviewed after. */
export interface HowReceived {
  remote?: RemotePlace;
  reviewedBefore?: string;
}

export interface ReviewBridgeDeps {
  /** What pending diffs may hold in memory, all sessions together (DESIGN §10). */
  pendingBytes: number;
  /** Where each pending diff is kept for a core that may follow this one (held-diffs.ts). */
  held?: HeldDiffs;
  session(id: string): Session | undefined;
  /** The link to an editor, by id, opened if need be (rejects when it is not live). */
  link(editorId: string): Promise<RpcLink>;
  /** Whether an editor's DIFF_REJECTED may mean the person closed the diff's tab there (see riskyClose). */
  closesTabOnReject?(editorId: string): boolean;
  onDiffAdded(diff: DiffSummary): void;
  onDiffDecided(record: DecisionRecord): void;
  /**
   * Review after: whether an edit whose texts hold `bytes` can be recorded (null) or why not; and
   * records it, resolving once it is on disk.
   */
  canRecordApplied(bytes: number): string | null;
  recordApplied(applied: SettledDiff): Promise<void>;
  onChange(): void;
  log(message: string): void;
}

export class ReviewBridge {
  /** Answers to agents still being written (a stop waits for them before it closes anything). */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    readonly inbox: RelayInbox,
    private readonly deps: ReviewBridgeDeps,
  ) {}

  /** Why a diff whose request holds `bytes` (frameHeld) cannot wait now (pending diffs hold too much), or null. */
  overBudget(bytes: number): string | null {
    return budgetProblem(this.inbox.heldBytes(), bytes, this.deps.pendingBytes);
  }

  /** Bytes pending diffs may still hold (what an original may take). */
  room(): number {
    return Math.max(0, this.deps.pendingBytes - this.inbox.heldBytes());
  }

  /**
   * A diff from an agent: it waits in the inbox and is offered to the editor at once, before
   * its original is read (see originalRead). `answered` resolves once the agent has its answer.
   */
  receive(session: Session, request: RpcRequest, frame: Frame, args: OpenDiffArgs, how: HowReceived = {}): { id: string; answered: Promise<void> } {
    const agent = session.clientInfo?.name ?? session.dialect;
    const { input, done } = heldDiff(session, request, frame, args, agent, how.remote);
    const { id, effects } = this.inbox.arrive(
      { ...input, ...(how.reviewedBefore !== undefined ? { reviewedBefore: how.reviewedBefore } : {}) },
      { request, frame },
    );
    const facts: HeldFacts = { session: session.id, request: request.id, tabName: args.tab_name, path: args.new_file_path, agent, createdAt: Date.now(), offer: null };
    this.deps.held?.hold(id, facts, session.link.connId, frame.bytes);
    this.run(effects);
    return { id, answered: done };
  }

  /**
   * Review after: the edit is recorded with the file before it and the agent is answered at once
   * with its own proposal. Returns why it cannot be (then it is reviewed before, as any other).
   */
  applyAfter(session: Session, request: RpcRequest, args: OpenDiffArgs, original: Original, remote?: RemotePlace): { id: string; answered: Promise<void> } | { reviewBefore: string } {
    const why = cannotApply(original, args.new_file_contents) ?? this.deps.canRecordApplied(heldSize(original.contents) + heldSize(args.new_file_contents));
    if (why !== null) return { reviewBefore: why };
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    const { id, effects } = this.inbox.applyAtOnce({
      sessionId: session.id,
      path: args.new_file_path,
      tabName: args.tab_name,
      newContents: args.new_file_contents,
      oldContents: original.isNew ? '' : original.contents,
      isNew: original.isNew,
      tooLarge: false,
      bytes: 0,
      agent: session.clientInfo?.name ?? session.dialect,
      reply: { id: request.id, answered },
      ...(remote ? { remote } : {}),
    });
    this.run(effects);
    return { id, answered: done };
  }

  /**
   * A diff an earlier core held (a restart, a crash), put back as it was: same id, the agent's
   * same request. `offer`: where it was offered; once that editor's link is taken over (reattach),
   * its answer to that same request decides the diff.
   */
  restore(session: Session, request: RpcRequest, frame: Frame, args: OpenDiffArgs, facts: HeldFacts, id: string, remote?: RemotePlace): { answered: Promise<void> } {
    const { input, done } = heldDiff(session, request, frame, args, facts.agent, remote);
    this.inbox.restore(
      input,
      { id, createdAt: facts.createdAt, editorId: facts.offer?.editorId ?? null, editorTab: facts.offer?.tab ?? null },
      { request, frame },
    );
    if (facts.offer) this.reattaching.set(id, { ...facts.offer, session });
    return { answered: done };
  }

  /** Offers an earlier core made on a link now taken over: their answers come on it, to the same ids. */
  private readonly reattaching = new Map<string, NonNullable<HeldFacts['offer']> & { session: Session }>();

  /** An editor's link taken over from an earlier core: the diffs offered on it wait for their answers there. */
  reattach(editorId: string, link: RpcLink): void {
    for (const [diffId, offer] of this.reattaching) {
      if (offer.editorId !== editorId) continue;
      this.reattaching.delete(diffId);
      if (link.connId !== offer.conn || !this.inbox.reoffered(diffId, editorId, offer.tab)) continue;
      const proposal = this.inbox.proposalOf(diffId);
      link
        .expectAnswer(offer.id, { lazyAnswer: true, expected: proposal instanceof LazyText ? proposal : undefined, owner: offer.session, held: true })
        .then((reply) => this.editorAnswered(diffId, editorId, reply))
        .catch((err: Error) => this.offerLost(diffId, editorId, err));
    }
  }

  /** The diff's on-disk original was read: the diff is shown (and announced) with it. */
  originalRead(id: string, original: Original): void {
    if (!this.inbox.originalRead(id, original)) return;
    const summary = this.inbox.pending().find((d) => d.id === id);
    if (summary) this.deps.onDiffAdded(summary);
    this.deps.onChange();
  }

  /** The person decided in Patchbay. */
  decide(id: string, decision: Decision): DecisionRecord {
    const outcome = this.inbox.decide(id, decision);
    if (!outcome) throw new HubError(`no pending diff ${id}`, 'not-found');
    this.run(outcome.effects);
    return outcome.record;
  }

  /**
   * Carries effects out; resolves the returned writes once the agents' answers are written. A reply
   * after a `record` goes only once that record is on disk.
   */
  run(effects: Effect[]): Promise<void>[] {
    const writes: Promise<void>[] = [];
    let recorded: { ok: Promise<boolean>; tabName: string } | null = null;
    for (const effect of effects) {
      if (effect.type === 'offer') this.offer(effect);
      else if (effect.type === 'closeTab') void this.closeTab(effect);
      else if (effect.type === 'record') recorded = { ok: this.record(effect.applied), tabName: effect.applied.tabName };
      else if (recorded === null) writes.push(this.reply(effect));
      else {
        const { tabName } = recorded;
        writes.push(recorded.ok.then((ok) => (ok ? this.reply(effect) : this.refuseUnrecorded(effect, tabName))));
      }
    }
    if (effects.length > 0) this.deps.onChange();
    for (const write of writes) {
      const tracked = write.catch(() => {}).finally(() => this.writing.delete(tracked));
      this.writing.add(tracked);
    }
    return writes;
  }

  /** Resolves once every answer sent so far is written (or could not be). */
  async drain(): Promise<void> {
    await Promise.all([...this.writing]);
  }

  private record(applied: SettledDiff): Promise<boolean> {
    return this.deps.recordApplied(applied).then(
      () => true,
      (err: Error) => {
        this.deps.log(`diff ${applied.id}: the applied edit of ${applied.path} could not be recorded (${err.message}); the agent is told no`);
        return false;
      },
    );
  }

  /** An edit to apply at once that could not be recorded is not applied: nobody could take it back. */
  private refuseUnrecorded(effect: Extract<Effect, { type: 'reply' }>, tabName: string): Promise<void> {
    const told = `Patchbay: your edit of ${effect.record.path} was not written: it could not be recorded for review (see Patchbay's log); try again`;
    const rejected = diffRejected(tabName);
    const record: DecisionRecord = { ...effect.record, outcome: 'rejected', status: 'rejected', by: 'patchbay', told };
    return this.reply({ ...effect, record, result: { content: [...rejected.content, { type: 'text', text: told }] } });
  }

  /** Carries out only the tab closings among `effects`; each resolves once its editor answered (or could not). */
  closeTabs(effects: Effect[]): Promise<void>[] {
    return effects.flatMap((effect) => (effect.type === 'closeTab' ? [this.closeTab(effect)] : []));
  }

  private reply(effect: Extract<Effect, { type: 'reply' }>): Promise<void> {
    const session = this.deps.session(effect.sessionId);
    const { reply, asSent } = effect;
    let written = Promise.resolve();
    if (asSent && 'forwarded' in asSent) {
      // The agent has its answer already (passSavedThrough).
    } else if (session && asSent && 'response' in asSent && asSent.frame.idAt) {
      // The editor's answer read lazily, as its bytes under the agent's id (a whole file is not copied).
      answer(session.link, reply.id, { msg: asSent.response, frame: asSent.frame }, null);
    } else if (session) {
      written = session.link.sendAndWait(result(reply.id, effect.result), { lazy: holdsLazyText(effect.result) });
    }
    reply.answered();
    // pi-ide shows the model only its own tool's result: the words go to its next diagnostics too.
    const { told, path } = effect.record;
    if (session && told !== undefined && session.dialect === 'pi') {
      session.reviewNotes = [...session.reviewNotes, { path, message: told }].slice(-MAX_NOTES);
    }
    this.deps.onDiffDecided(effect.record);
    return written;
  }

  private offer(effect: Extract<Effect, { type: 'offer' }>): void {
    const session = this.deps.session(effect.sessionId);
    if (!session) return;
    const { diffId, editorId, asSent } = effect;
    void this.deps
      .link(editorId)
      .then((link) => {
        const sent = offerOn(link, effect.args, asSent, session);
        this.deps.held?.offered(diffId, session.link.connId, link.connId === null ? null : { editorId, tab: effect.tabName, conn: link.connId, id: sent.id });
        return sent.response;
      })
      .then((reply) => this.editorAnswered(diffId, editorId, reply))
      .catch((err: Error) => this.offerLost(diffId, editorId, err));
  }

  /**
   * Whether closing a diff's tab after the editor rejected it could close another diff: where the
   * person closed the tab, claudecode.nvim's close_tab for it closes whichever tab is current
   * instead, and with another session's diff open there, that one is rejected. Its tab is then
   * left to the person (a diff denied with its command, tab still open, stays open).
   */
  private riskyClose(editorId: string): boolean {
    return this.deps.closesTabOnReject?.(editorId) === true && this.inbox.pending().some((d) => d.editorId === editorId && d.inEditor);
  }

  /** The editor did not decide it: the diff stays pending in Patchbay; the agent is never answered with an error for it. */
  private offerLost(diffId: string, editorId: string, err: Error): void {
    if (this.inbox.offerFailed(diffId, editorId)) {
      this.deps.log(`diff ${diffId}: editor ${editorId} did not decide it (${err.message}); it waits in Patchbay`);
      this.deps.onChange();
    }
  }

  private editorAnswered(diffId: string, editorId: string, reply: Reply): void {
    const response = reply.msg;
    const saved = savedContents(response.result);
    if (saved instanceof LazyText) return this.passSavedThrough(diffId, editorId, reply, saved);
    const texts = resultTexts(response.result);
    if (texts?.[0] === 'FILE_SAVED') {
      const answer = { saved: true as const, contents: texts[1] ?? null };
      this.run(this.inbox.editorAnswered(diffId, editorId, answer, { response, frame: reply.frame }));
    } else if (texts?.[0] === 'DIFF_REJECTED') {
      const effects = this.inbox.editorAnswered(diffId, editorId, { saved: false });
      this.run(this.riskyClose(editorId) ? effects.filter((e) => e.type !== 'closeTab') : effects);
    } else {
      const what = response.error
        ? `${response.error.message}${response.error.data === undefined ? '' : ` (${JSON.stringify(response.error.data).slice(0, 300)})`}`
        : JSON.stringify(response.result)?.slice(0, 200);
      throw new Error(`unexpected openDiff answer: ${what}`);
    }
  }

  /**
   * A big FILE_SAVED read lazily: when the agent can get it as its bytes (under the agent's id),
   * it goes first and the inbox reads the file after it is written, while the agent reads it too.
   */
  private passSavedThrough(diffId: string, editorId: string, reply: Reply, contents: LazyText): void {
    const claim = this.inbox.claimEditorAnswer(diffId, editorId);
    if (!claim) return; // decided meanwhile: a late answer, dropped as the inbox would
    const settle = (forwarded: boolean): void => {
      // The proposal itself, byte for byte (the editor saved it unchanged): nothing to decode.
      let text: ProposedText;
      try {
        text = this.inbox.proposalMatching(diffId, contents) ?? contents.value();
      } catch (err) {
        // The agent may have the unreadable frame already; it does not count as an answer,
        // and the diff waits in Patchbay for a decision that will be answered properly.
        this.inbox.releaseAnswer(diffId);
        if (this.inbox.offerFailed(diffId, editorId)) {
          this.deps.log(`diff ${diffId}: editor ${editorId} saved it with an unreadable answer (${(err as Error).message}); it waits in Patchbay`);
        }
        this.deps.onChange();
        return;
      }
      const asSent: AsSent = forwarded ? { forwarded: true } : { response: reply.msg, frame: reply.frame };
      this.run(this.inbox.editorAnswered(diffId, editorId, { saved: true, contents: text }, asSent));
    };
    const session = this.deps.session(claim.sessionId);
    if (session?.link.isOpen && reply.frame.idAt) {
      // The log's view of it (RpcLink.passedOn does the same): a copy of the editor's answer with
      // its id set would make every answer's id a field V8 no longer takes as constant, and
      // deoptimize the code that reads them.
      session.link.forward(underId(reply.frame, reply.frame.idAt, claim.reply.id), { kind: 'response', msg: { jsonrpc: '2.0', id: claim.reply.id } }, () => settle(true));
    } else {
      settle(false);
    }
  }

  /**
   * Closes a decided diff's tab in its editor (over the editor's one link, opened for it if need
   * be: no decided diff stays open there). The editor's answer does not matter, nor does VS
   * Code's FILE_SAVED for a tab it saves as it closes it: the diff is decided already.
   */
  private async closeTab(effect: Extract<Effect, { type: 'closeTab' }>): Promise<void> {
    const owner = this.deps.session(effect.sessionId);
    try {
      const link = await this.deps.link(effect.editorId);
      await link.request('tools/call', { name: 'close_tab', arguments: { tab_name: effect.tabName } }, { owner }).response;
    } catch (err) {
      this.deps.log(`diff ${effect.diffId}: its tab in editor ${effect.editorId} could not be closed: ${(err as Error).message}`);
    }
  }
}

/**
 * Sends an offer: the agent's own request when there is one (as the bytes that arrived under
 * an id of the link's, or with only its tab renamed where the editor names it differently);
 * else a request of Patchbay's. The file is never decoded to be sent, and a big answer is read
 * lazily.
 */
function offerOn(link: RpcLink, args: OfferArgs, asSent: AsSent | undefined, owner: Session): { id: RpcId; response: Promise<Reply> } {
  // An editor that saves the file unchanged answers with these very bytes.
  const proposal = args.new_file_contents instanceof LazyText ? args.new_file_contents : undefined;
  const reading = { lazyAnswer: true, expected: proposal, owner, held: true };
  if (asSent && 'request' in asSent) {
    const params = asSent.request.params as { arguments: Record<string, unknown> };
    const sent = params.arguments;
    if (sent.tab_name === args.tab_name && sent.new_file_path === args.new_file_path) return link.relay(asSent.request, asSent.frame, reading);
    // A remote agent's paths are this machine's for the editor (`args` has them mapped).
    const paths = sent.new_file_path === args.new_file_path ? {} : { old_file_path: args.old_file_path, new_file_path: args.new_file_path };
    const renamed = { ...params, arguments: { ...sent, ...paths, tab_name: args.tab_name } };
    return link.request('tools/call', renamed, { lazy: true, expected: proposal, owner, held: true });
  }
  return link.request('tools/call', { name: 'openDiff', arguments: args }, { lazy: proposal !== undefined, expected: proposal, owner, held: true });
}

/**
 * A diff held for a decision, as the inbox takes it (on arrival, or put back after a core
 * restart): the agent's request waits, its original still to be read; `done` resolves once the
 * agent has its answer.
 */
function heldDiff(session: Session, request: RpcRequest, frame: Frame, args: OpenDiffArgs, agent: string, remote: RemotePlace | undefined): { input: NewDiff<AgentReply>; done: Promise<void> } {
  let answered!: () => void;
  const done = new Promise<void>((resolve) => (answered = resolve));
  const input: NewDiff<AgentReply> = {
    sessionId: session.id,
    path: args.new_file_path,
    tabName: args.tab_name,
    newContents: args.new_file_contents,
    oldContents: null,
    isNew: false,
    tooLarge: false,
    bytes: frameHeld(frame),
    readingOriginal: true,
    agent,
    reply: { id: request.id, answered },
    ...(remote ? { remote } : {}),
  };
  return { input, done };
}

/** Why an edit cannot be applied at once and taken back later (its folder is reviewed after), or null. */
function cannotApply(original: Original, proposal: ProposedText): string | null {
  if (original.tooLarge) return 'the file on disk is larger than the review cap, so Patchbay could not keep it to take the edit back';
  if (!original.isNew && original.contents === null) {
    return `the file on disk could not be read (${original.unreadable ?? 'unknown reason'}), so Patchbay could not take the edit back`;
  }
  try {
    textOf(proposal);
  } catch (err) {
    return `the proposal is not a valid JSON string (${(err as Error).message})`;
  }
  return null;
}

/** The file in a FILE_SAVED result when it was left unread (LazyText); undefined otherwise. */
function savedContents(result: unknown): LazyText | undefined {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return undefined;
  const [marker, file] = content as { text?: unknown }[];
  return marker?.text === 'FILE_SAVED' && file?.text instanceof LazyText ? file.text : undefined;
}

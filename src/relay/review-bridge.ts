// Carries out what the review inbox decides (DESIGN §7): offers diffs to editors, closes their
// tabs, answers agents. The inbox is pure; this is where its effects meet the sockets.
import type { DecisionRecord, DiffSummary, RemotePlace } from '../api/types.ts';
import { HubError } from '../api/types.ts';
import { result, type RpcId, type RpcRequest, type RpcResponse } from '../protocol/jsonrpc.ts';
import { holdsLazyText, LazyText } from '../protocol/lazy-json.ts';
import { resultTexts } from '../protocol/mcp.ts';
import { budgetProblem } from '../review/diff-limits.ts';
import type { ProposedText } from '../review/held-text.ts';
import type { Decision, Inbox, InboxEffect, OfferArgs } from '../review/inbox.ts';
import type { Original } from '../review/read-original.ts';
import { MAX_NOTES } from './review-notes.ts';
import { encodedFrame, type Frame, type Reply, type RpcLink } from './rpc-link.ts';
import type { Session } from './session.ts';
import type { OpenDiffArgs } from './tools/open-diff.ts';

/** How a diff's agent is answered: its request id, and whoever waits for that answer. */
export interface AgentReply {
  id: RpcId;
  answered(): void;
}

/**
 * A frame that can be passed on byte for byte: the agent's openDiff, or the editor's FILE_SAVED
 * (`forwarded`: already passed on before the inbox read it).
 */
export type AsSent = { request: RpcRequest; frame: Frame } | { response: RpcResponse; frame: Frame } | { forwarded: true };

export type RelayInbox = Inbox<AgentReply, AsSent>;
type Effect = InboxEffect<AgentReply, AsSent>;

export interface ReviewBridgeDeps {
  /** What pending diffs may hold in memory, all sessions together (DESIGN §10). */
  pendingBytes: number;
  session(id: string): Session | undefined;
  /** The link to an editor, by id, opened if need be (rejects when it is not live). */
  link(editorId: string): Promise<RpcLink>;
  onDiffAdded(diff: DiffSummary): void;
  onDiffDecided(record: DecisionRecord): void;
  onChange(): void;
  log(message: string): void;
}

export class ReviewBridge {
  constructor(
    readonly inbox: RelayInbox,
    private readonly deps: ReviewBridgeDeps,
  ) {}

  /** Why a diff whose request is `bytes` long cannot wait now (pending diffs hold too much), or null. */
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
  receive(session: Session, request: RpcRequest, frame: Frame, args: OpenDiffArgs, remote?: RemotePlace): { id: string; answered: Promise<void> } {
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    const { id, effects } = this.inbox.arrive(
      {
        sessionId: session.id,
        path: args.new_file_path,
        tabName: args.tab_name,
        newContents: args.new_file_contents,
        oldContents: null,
        isNew: false,
        tooLarge: false,
        bytes: frame.bytes.length,
        readingOriginal: true,
        agent: session.clientInfo?.name ?? session.dialect,
        reply: { id: request.id, answered },
        ...(remote ? { remote } : {}),
      },
      { request, frame },
    );
    this.run(effects);
    return { id, answered: done };
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

  /** Carries effects out; resolves the returned writes once the agents' answers are written. */
  run(effects: Effect[]): Promise<void>[] {
    const writes: Promise<void>[] = [];
    for (const effect of effects) {
      if (effect.type === 'offer') this.offer(effect);
      else if (effect.type === 'closeTab') void this.closeTab(effect);
      else writes.push(this.reply(effect));
    }
    if (effects.length > 0) this.deps.onChange();
    return writes;
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
    } else if (session && asSent && 'response' in asSent && asSent.response.id === reply.id) {
      session.link.forward(asSent.frame, { kind: 'response', msg: asSent.response });
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
      .then((link) => offerOn(link, effect.args, asSent, session))
      .then((reply) => this.editorAnswered(diffId, editorId, reply))
      .catch((err: Error) => {
        // The diff stays pending in Patchbay; the agent is never answered with an error for it.
        if (this.inbox.offerFailed(diffId, editorId)) {
          this.deps.log(`diff ${diffId}: editor ${editorId} did not decide it (${err.message}); it waits in Patchbay`);
          this.deps.onChange();
        }
      });
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
      this.run(this.inbox.editorAnswered(diffId, editorId, { saved: false }));
    } else {
      const what = response.error
        ? `${response.error.message}${response.error.data === undefined ? '' : ` (${JSON.stringify(response.error.data).slice(0, 300)})`}`
        : JSON.stringify(response.result)?.slice(0, 200);
      throw new Error(`unexpected openDiff answer: ${what}`);
    }
  }

  /**
   * A big FILE_SAVED read lazily: when the agent can get it byte for byte, it goes first and
   * the inbox reads the file after it is written, while the agent reads it too.
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
    if (session?.link.isOpen && reply.msg.id === claim.reply.id) {
      session.link.forward(reply.frame, { kind: 'response', msg: reply.msg }, () => settle(true));
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
 * Sends an offer: the agent's own request when there is one (as the bytes that arrived, or with
 * only its tab renamed where the editor names it differently), under the agent's id so that
 * the answer can go back as its bytes too; else a request of Patchbay's. The file is never
 * decoded to be sent, and a big answer is read lazily.
 */
function offerOn(link: RpcLink, args: OfferArgs, asSent: AsSent | undefined, owner: Session): Promise<Reply> {
  // An editor that saves the file unchanged answers with these very bytes.
  const proposal = args.new_file_contents instanceof LazyText ? args.new_file_contents : undefined;
  const reading = { lazyAnswer: true, expected: proposal, owner };
  if (asSent && 'request' in asSent) {
    const params = asSent.request.params as { arguments: Record<string, unknown> };
    const sent = params.arguments;
    if (sent.tab_name === args.tab_name && sent.new_file_path === args.new_file_path) return link.relay(asSent.request, asSent.frame, reading).response;
    // A remote agent's paths are this machine's for the editor (`args` has them mapped).
    const paths = sent.new_file_path === args.new_file_path ? {} : { old_file_path: args.old_file_path, new_file_path: args.new_file_path };
    const renamed: RpcRequest = { ...asSent.request, params: { ...params, arguments: { ...sent, ...paths, tab_name: args.tab_name } } };
    return link.relay(renamed, encodedFrame(renamed), reading).response;
  }
  return link.request('tools/call', { name: 'openDiff', arguments: args }, { lazy: proposal !== undefined, expected: proposal, owner }).response;
}

/** The file in a FILE_SAVED result when it was left unread (LazyText); undefined otherwise. */
function savedContents(result: unknown): LazyText | undefined {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return undefined;
  const [marker, file] = content as { text?: unknown }[];
  return marker?.text === 'FILE_SAVED' && file?.text instanceof LazyText ? file.text : undefined;
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DecisionRecord, Dialect, ReviewRoute } from '../../src/api/types.ts';
import { diffRejected, fileSaved, Inbox, toolOf, type InboxContext, type InboxEffect, type NewDiff, type SettledDiff } from '../../src/review/inbox.ts';
import { textResult } from '../../src/protocol/mcp.ts';

/** An inbox whose decisions are kept here, newest first, as the hub's history keeps them. */
class RecordingInbox extends Inbox<string, string> {
  readonly decided: SettledDiff[];
  constructor(ctx: InboxContext, lastId = 0) {
    const decided: SettledDiff[] = [];
    super({ ...ctx, settled: (detail) => decided.unshift(detail) }, lastId);
    this.decided = decided;
  }

  recent(): DecisionRecord[] {
    return this.decided.map((d) => d.decision!);
  }
}

/** The world as the relay would report it: which editor each session is bound to, the route, a clock. */
function world(bound: Record<string, string | null> = {}, route: ReviewRoute = 'editor-and-patchbay', dialects: Record<string, Dialect> = {}) {
  const state = { bound: { ...bound }, route, clock: 1000 };
  const inbox = new RecordingInbox({
    boundEditor: (sessionId) => state.bound[sessionId] ?? null,
    editorDialect: (editorId) => dialects[editorId] ?? null,
    route: () => state.route,
    now: () => state.clock,
  });
  return { inbox, state };
}

let replyHandle = 0;
function diff(over: Partial<NewDiff<string>> = {}): NewDiff<string> {
  return {
    sessionId: 's1',
    path: '/w/a.txt',
    tabName: 'pi-write:1',
    newContents: 'new\n',
    oldContents: 'old\n',
    isNew: false,
    tooLarge: false,
    bytes: 0,
    agent: 'pi-ide',
    reply: `req-${++replyHandle}`,
    ...over,
  };
}

const ofType = <T extends InboxEffect<string, string>['type']>(effects: InboxEffect<string, string>[], type: T) =>
  effects.filter((e): e is Extract<InboxEffect<string, string>, { type: T }> => e.type === type);

describe('a diff arrives', () => {
  test('it is offered to the bound editor with the openDiff arguments, and listed as pending', () => {
    const { inbox } = world({ s1: 'nvim' });
    const input = diff();
    const { id, effects } = inbox.arrive(input);
    assert.deepEqual(effects, [
      {
        type: 'offer',
        diffId: id,
        sessionId: 's1',
        editorId: 'nvim',
        tabName: 'pi-write:1',
        args: { old_file_path: '/w/a.txt', new_file_path: '/w/a.txt', new_file_contents: 'new\n', tab_name: 'pi-write:1' },
      },
    ]);
    const [summary] = inbox.pending();
    assert.equal(summary!.id, id);
    assert.equal(summary!.editorId, 'nvim');
    assert.equal(summary!.inEditor, true);
    assert.equal(summary!.status, 'pending');
    assert.equal(summary!.createdAt, 1000);
    assert.equal(summary!.tool, 'write');
  });

  test('with route patchbay-only it is not offered to the editor', () => {
    const { inbox } = world({ s1: 'nvim' }, 'patchbay-only');
    const { id, effects } = inbox.arrive(diff());
    assert.deepEqual(effects, []);
    assert.equal(inbox.get(id)!.inEditor, false);
    assert.equal(inbox.get(id)!.editorId, null);
  });

  test('from an unbound session it waits in Patchbay only', () => {
    const { inbox } = world({});
    const { id, effects } = inbox.arrive(diff());
    assert.deepEqual(effects, []);
    assert.deepEqual(
      inbox.pending().map((d) => d.id),
      [id],
    );
  });

  test('its detail keeps old and new contents, and the summary says new file / too large', () => {
    const { inbox } = world();
    const created = inbox.arrive(diff({ oldContents: null, isNew: true, path: '/w/new.txt' })).id;
    const huge = inbox.arrive(diff({ oldContents: null, tooLarge: true, tabName: 'pi-edit:2', path: '/w/big.bin' })).id;
    const normal = inbox.arrive(diff({ tabName: 'pi-write:3' })).id;
    assert.deepEqual(
      [created, huge, normal].map((id) => {
        const d = inbox.get(id)!;
        return [d.isNew, d.tooLarge, d.oldContents, d.newContents, d.tool];
      }),
      [
        [true, false, null, 'new\n', 'write'],
        [false, true, null, 'new\n', 'edit'],
        [false, false, 'old\n', 'new\n', 'write'],
      ],
    );
    assert.equal(inbox.get('nope'), undefined);
  });

  test('a second diff with the same tab name from one session rejects the first', () => {
    const { inbox } = world({ s1: 'nvim' });
    const first = inbox.arrive(diff({ reply: 'r1', newContents: 'one' }));
    const second = inbox.arrive(diff({ reply: 'r2', newContents: 'two' }));
    assert.notEqual(first.id, second.id);
    assert.deepEqual(
      second.effects.map((e) => [e.type, e.diffId]),
      [
        ['closeTab', first.id],
        ['reply', first.id],
        ['offer', second.id],
      ],
    );
    const reply = ofType(second.effects, 'reply')[0]!;
    assert.equal(reply.reply, 'r1');
    assert.deepEqual(reply.result, diffRejected('pi-write:1'));
    // The first's editor tab is gone, so the new diff can use the plain name.
    assert.equal(ofType(second.effects, 'offer')[0]!.tabName, 'pi-write:1');
    assert.deepEqual(
      inbox.pending().map((d) => d.id),
      [second.id],
    );
    assert.equal(inbox.recent()[0]!.outcome, 'rejected');
    assert.equal(inbox.recent()[0]!.by, 'agent');
  });

  test('the same tab name from two sessions does not replace anything', () => {
    const { inbox } = world({});
    const a = inbox.arrive(diff({ sessionId: 's1' }));
    const b = inbox.arrive(diff({ sessionId: 's2' }));
    assert.deepEqual(b.effects, []);
    assert.deepEqual(inbox.pending().map((d) => d.id).sort(), [a.id, b.id].sort());
  });

  test('two sessions with the same tab name in one editor get distinct editor tab names', () => {
    const { inbox } = world({ s1: 'nvim', s2: 'nvim', s3: 'nvim' });
    const tabs = ['s1', 's2', 's3'].map((sessionId) => ofType(inbox.arrive(diff({ sessionId })).effects, 'offer')[0]!);
    assert.deepEqual(
      tabs.map((o) => o.tabName),
      ['pi-write:1', 'pi-write:1 (2)', 'pi-write:1 (3)'],
    );
    assert.deepEqual(
      tabs.map((o) => o.args.tab_name),
      tabs.map((o) => o.tabName),
    );
    assert.equal(inbox.findByEditorTab('nvim', 'pi-write:1 (2)'), tabs[1]!.diffId);
    // The agent still knows its diff by its own name.
    assert.equal(inbox.findByTab('s2', 'pi-write:1'), tabs[1]!.diffId);
    assert.equal(inbox.get(tabs[1]!.diffId)!.tabName, 'pi-write:1');
  });

  test('the same tab name in two different editors is not renamed', () => {
    const { inbox } = world({ s1: 'nvim', s2: 'code' });
    inbox.arrive(diff({ sessionId: 's1' }));
    const offer = ofType(inbox.arrive(diff({ sessionId: 's2' })).effects, 'offer')[0]!;
    assert.equal(offer.tabName, 'pi-write:1');
    assert.equal(offer.editorId, 'code');
  });
});

describe('deciding in Patchbay', () => {
  test('accept answers FILE_SAVED with the proposed contents and closes the editor tab', () => {
    const { inbox, state } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff({ reply: 'r1' }));
    state.clock = 2000;
    const outcome = inbox.decide(id, { outcome: 'accept' })!;
    assert.deepEqual(outcome.effects, [
      { type: 'closeTab', diffId: id, sessionId: 's1', editorId: 'nvim', tabName: 'pi-write:1' },
      { type: 'reply', diffId: id, sessionId: 's1', reply: 'r1', result: fileSaved('new\n'), record: outcome.record },
    ]);
    assert.deepEqual(outcome.record, { id, sessionId: 's1', path: '/w/a.txt', outcome: 'accepted', status: 'accepted', by: 'patchbay', at: 2000, edited: false, tool: 'write', editorId: 'nvim', agent: 'pi-ide' });
    assert.deepEqual(inbox.pending(), []);
    assert.deepEqual(inbox.recent(), [outcome.record]);
  });

  test('accept with edited contents answers FILE_SAVED with them and records the edit', () => {
    const { inbox } = world({});
    const { id } = inbox.arrive(diff());
    const outcome = inbox.decide(id, { outcome: 'accept', contents: 'edited\n' })!;
    const told = 'Patchbay: the person edited your proposal for /w/a.txt before it was written. The file now differs from your proposal: read /w/a.txt again before you change it further.';
    const result = textResult('FILE_SAVED', 'edited\n', told);
    assert.deepEqual(outcome.effects, [{ type: 'reply', diffId: id, sessionId: 's1', reply: outcome.effects[0]!.type === 'reply' ? outcome.effects[0]!.reply : null, result, record: outcome.record }]);
    assert.equal(outcome.record.edited, true);
    assert.equal(outcome.record.told, told);
  });

  test('accept with contents edited down to an empty file keeps them empty', () => {
    const { inbox } = world({});
    const { id } = inbox.arrive(diff());
    const outcome = inbox.decide(id, { outcome: 'accept', contents: '' })!;
    assert.deepEqual(ofType(outcome.effects, 'reply')[0]!.result.content.slice(0, 2), fileSaved('').content);
    assert.equal(outcome.record.edited, true);
  });

  test('reject answers DIFF_REJECTED with the agent tab name, not the editor one', () => {
    const { inbox } = world({ s1: 'nvim', s2: 'nvim' });
    inbox.arrive(diff({ sessionId: 's1' }));
    const { id } = inbox.arrive(diff({ sessionId: 's2' }));
    const outcome = inbox.decide(id, { outcome: 'reject' })!;
    assert.deepEqual(
      outcome.effects.map((e) => (e.type === 'reply' ? e.result : e.type === 'closeTab' ? e.tabName : e.type)),
      ['pi-write:1 (2)', diffRejected('pi-write:1')],
    );
    assert.deepEqual(diffRejected('pi-write:1'), { content: [{ type: 'text', text: 'DIFF_REJECTED' }, { type: 'text', text: 'pi-write:1' }] });
    assert.equal(outcome.record.outcome, 'rejected');
  });

  test('a diff that is not in an editor is decided without a closeTab', () => {
    const { inbox } = world({}, 'patchbay-only');
    const { id } = inbox.arrive(diff());
    assert.deepEqual(
      inbox.decide(id, { outcome: 'reject' })!.effects.map((e) => e.type),
      ['reply'],
    );
  });

  test('deciding an unknown or already decided diff returns null', () => {
    const { inbox } = world({});
    const { id } = inbox.arrive(diff());
    assert.ok(inbox.decide(id, { outcome: 'accept' }));
    assert.equal(inbox.decide(id, { outcome: 'reject' }), null);
    assert.equal(inbox.decide('d999', { outcome: 'accept' }), null);
    assert.equal(inbox.recent().length, 1);
  });

  test('each decision hands its whole story to the history: proposal, on-disk contents, what was written', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff({ reply: 'r1' }));
    inbox.decide(id, { outcome: 'accept', contents: 'mine\n' });
    const [decided] = inbox.decided;
    assert.equal(decided!.status, 'accepted');
    assert.equal(decided!.oldContents, 'old\n');
    assert.equal(decided!.newContents, 'new\n');
    assert.equal(decided!.finalContents, 'mine\n');
    assert.equal(decided!.inEditor, false);
    assert.equal(decided!.decision!.edited, true);
    const rejected = inbox.arrive(diff({ tabName: 'pi-write:2' })).id;
    inbox.decide(rejected, { outcome: 'reject' });
    assert.equal(inbox.decided[0]!.finalContents, null, 'nothing was written');
  });
});

describe('the editor answers', () => {
  test('FILE_SAVED with contents is passed on, without closing the tab the editor closed itself', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff({ reply: 'r1' }));
    const effects = inbox.editorAnswered(id, 'nvim', { saved: true, contents: 'from editor\n' });
    const record = { id, sessionId: 's1', path: '/w/a.txt', outcome: 'accepted', status: 'accepted', by: 'editor', at: 1000, edited: true, tool: 'write' as const, editorId: 'nvim', agent: 'pi-ide' };
    assert.deepEqual(effects, [{ type: 'reply', diffId: id, sessionId: 's1', reply: 'r1', result: fileSaved('from editor\n'), record }]);
    assert.deepEqual(inbox.recent()[0], record);
  });

  test('FILE_SAVED without contents is completed with the proposed text', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    const effects = inbox.editorAnswered(id, 'nvim', { saved: true, contents: null });
    assert.deepEqual(ofType(effects, 'reply')[0]!.result, fileSaved('new\n'));
    assert.equal(inbox.recent()[0]!.edited, false);
  });

  test('DIFF_REJECTED from the editor rejects the diff', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    const effects = inbox.editorAnswered(id, 'nvim', { saved: false });
    assert.deepEqual(
      effects.map((e) => e.type),
      ['reply'],
    );
    assert.deepEqual(ofType(effects, 'reply')[0]!.result, diffRejected('pi-write:1'));
    assert.equal(inbox.recent()[0]!.by, 'editor');
    assert.equal(inbox.recent()[0]!.outcome, 'rejected');
  });

  test('a late answer after Patchbay decided is dropped', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    inbox.decide(id, { outcome: 'reject' });
    assert.deepEqual(inbox.editorAnswered(id, 'nvim', { saved: true, contents: 'late' }), []);
    assert.equal(inbox.recent().length, 1);
    assert.equal(inbox.recent()[0]!.outcome, 'rejected');
  });

  test('an answer from an editor the diff is not offered to is ignored', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    assert.deepEqual(inbox.editorAnswered(id, 'code', { saved: true, contents: 'x' }), []);
    assert.equal(inbox.pending().length, 1);
  });

  test('editor and Patchbay deciding in the same tick: the editor first wins, Patchbay gets null', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    const fromEditor = inbox.editorAnswered(id, 'nvim', { saved: false });
    const fromPatchbay = inbox.decide(id, { outcome: 'accept' });
    assert.equal(ofType(fromEditor, 'reply').length, 1);
    assert.equal(fromPatchbay, null);
    assert.deepEqual(
      inbox.recent().map((r) => [r.outcome, r.by]),
      [['rejected', 'editor']],
    );
  });

  test('editor and Patchbay deciding in the same tick: Patchbay first wins, the editor gets no effects', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    const fromPatchbay = inbox.decide(id, { outcome: 'accept' })!;
    const fromEditor = inbox.editorAnswered(id, 'nvim', { saved: false });
    assert.deepEqual(
      fromPatchbay.effects.map((e) => e.type),
      ['closeTab', 'reply'],
    );
    assert.deepEqual(fromEditor, []);
    assert.deepEqual(
      inbox.recent().map((r) => [r.outcome, r.by]),
      [['accepted', 'patchbay']],
    );
  });
});

describe('an editor answer passed to the agent before it is read (a big FILE_SAVED)', () => {
  test('once claimed, nothing else decides the diff until the answer is read; then it is recorded as the editor’s', () => {
    const { inbox } = world({ s1: 'nvim' });
    const input = diff();
    const { id } = inbox.arrive(input);
    assert.deepEqual(inbox.claimEditorAnswer(id, 'nvim'), { sessionId: 's1', reply: input.reply });
    assert.equal(inbox.claimEditorAnswer(id, 'nvim'), null, 'claimed once');
    assert.equal(inbox.decide(id, { outcome: 'reject' }), null, 'Patchbay cannot decide it meanwhile');
    assert.deepEqual(inbox.withdraw(id), [], 'nor the agent withdraw it');
    assert.deepEqual(inbox.agentGone('s1'), []);
    assert.deepEqual(inbox.shutdown(), [], 'nor a shutdown reject it');
    assert.equal(inbox.offerFailed(id, 'nvim'), false);
    assert.deepEqual(inbox.editorAvailable('s1'), [], 'nor is it offered again');
    assert.equal(inbox.pending().length, 1, 'still listed until read');

    const effects = inbox.editorAnswered(id, 'nvim', { saved: true, contents: 'new, edited\n' }, 'already forwarded');
    const [reply] = ofType(effects, 'reply');
    assert.equal(reply!.asSent, 'already forwarded');
    assert.equal(reply!.record.by, 'editor');
    assert.equal(reply!.record.edited, true);
    assert.equal(inbox.decided[0]!.finalContents, 'new, edited\n');
    assert.equal(inbox.pending().length, 0);
  });

  test('an answer that turns out unreadable is released: the diff can be decided again', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    assert.ok(inbox.claimEditorAnswer(id, 'nvim'));
    inbox.releaseAnswer(id);
    assert.equal(inbox.offerFailed(id, 'nvim'), true, 'the editor did not decide it');
    assert.equal(inbox.decide(id, { outcome: 'accept' })!.record.by, 'patchbay');
  });

  test('a claim for a decided diff, or from another editor, gets nothing', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    assert.equal(inbox.claimEditorAnswer(id, 'code'), null);
    inbox.decide(id, { outcome: 'accept' });
    assert.equal(inbox.claimEditorAnswer(id, 'nvim'), null);
  });
});

describe('a Claude-dialect editor (claudecode.nvim, VS Code)', () => {
  test("a pi diff gets a tab name with both Claude markers there; the agent still hears its own name", () => {
    const { inbox } = world({ s1: 'cc' }, 'editor-and-patchbay', { cc: 'claude' });
    const { id, effects } = inbox.arrive(diff({ path: '/w/src/inventory.py', reply: 'r1' }));
    const [offer] = ofType(effects, 'offer');
    assert.equal(offer!.tabName, `✻ [pi] inventory.py (${id}) ⧉`);
    assert.equal(offer!.args.tab_name, offer!.tabName);
    const effectsOfReject = inbox.editorAnswered(id, 'cc', { saved: false });
    assert.deepEqual(ofType(effectsOfReject, 'reply')[0]!.result, diffRejected('pi-write:1'));
  });

  test('a Claude Code tab name keeps its markers but not "[Claude Code]", which VS Code would save when another diff opens', () => {
    const { inbox } = world({ s1: 'cc' }, 'editor-and-patchbay', { cc: 'claude' });
    const name = '✻ [Claude Code] a.txt (998b60) ⧉';
    assert.equal(ofType(inbox.arrive(diff({ tabName: name })).effects, 'offer')[0]!.tabName, '✻ [Claude Code · Patchbay] a.txt (998b60) ⧉');
  });

  test('a diff decided in the editor is closed there by Patchbay, under the editor’s name, before the agent hears', () => {
    const { inbox } = world({ s1: 'cc' }, 'editor-and-patchbay', { cc: 'claude' });
    const { id, effects } = inbox.arrive(diff({ reply: 'r1' }));
    const editorTab = ofType(effects, 'offer')[0]!.tabName;
    const decided = inbox.editorAnswered(id, 'cc', { saved: true, contents: 'kept\n' });
    assert.deepEqual(decided.map((e) => e.type), ['closeTab', 'reply']);
    assert.equal(ofType(decided, 'closeTab')[0]!.tabName, editorTab);
    assert.deepEqual(ofType(decided, 'reply')[0]!.result, fileSaved('kept\n'));
    assert.deepEqual(inbox.withdraw(id), [], "the agent's own close_tab afterwards finds nothing left to close");
  });

  test('a Claude Code session’s diff in pi-ide.nvim keeps its name, and is not closed again after the editor decided', () => {
    const { inbox } = world({ s1: 'nvim' }, 'editor-and-patchbay', { nvim: 'pi' });
    const name = '✻ [Claude Code] a.txt (998b60) ⧉';
    const { id, effects } = inbox.arrive(diff({ tabName: name }));
    assert.equal(ofType(effects, 'offer')[0]!.tabName, name);
    assert.deepEqual(inbox.editorAnswered(id, 'nvim', { saved: false }).map((e) => e.type), ['reply']);
  });
});

describe('the editor goes away and comes back', () => {
  test('a failed offer keeps the diff pending, and it is re-offered under the same editor tab name', () => {
    const { inbox } = world({ s1: 'nvim', s2: 'nvim' });
    inbox.arrive(diff({ sessionId: 's2' })); // takes 'pi-write:1' in nvim
    const { id, effects } = inbox.arrive(diff({ sessionId: 's1' }));
    assert.equal(ofType(effects, 'offer')[0]!.tabName, 'pi-write:1 (2)');
    assert.equal(inbox.offerFailed(id, 'nvim'), true);
    assert.equal(inbox.offerFailed(id, 'nvim'), false, 'a second failure report changes nothing');
    assert.equal(inbox.get(id)!.inEditor, false);
    assert.equal(inbox.get(id)!.editorId, 'nvim');

    const again = inbox.editorAvailable('s1');
    assert.deepEqual(
      again.map((e) => e.type === 'offer' && [e.diffId, e.editorId, e.tabName]),
      [[id, 'nvim', 'pi-write:1 (2)']],
    );
    assert.equal(inbox.get(id)!.inEditor, true);
  });

  test('while the editor is away the diff is decided in Patchbay without a closeTab', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    inbox.offerFailed(id, 'nvim');
    assert.deepEqual(
      inbox.decide(id, { outcome: 'accept' })!.effects.map((e) => e.type),
      ['reply'],
    );
  });

  test('an editor that is available again only gets the diffs it has not got open', () => {
    const { inbox } = world({ s1: 'nvim' });
    const open = inbox.arrive(diff({ tabName: 'pi-write:1' })).id;
    const failed = inbox.arrive(diff({ tabName: 'pi-write:2' })).id;
    inbox.offerFailed(failed, 'nvim');
    const effects = inbox.editorAvailable('s1');
    assert.deepEqual(
      effects.map((e) => e.diffId),
      [failed],
    );
    assert.equal(inbox.get(open)!.inEditor, true);
  });

  test('a diff that waited unbound is offered once the session gets an editor', () => {
    const { inbox, state } = world({});
    const { id } = inbox.arrive(diff());
    assert.deepEqual(inbox.editorAvailable('s1'), []);
    state.bound.s1 = 'code';
    const effects = inbox.editorAvailable('s1');
    assert.deepEqual(
      effects.map((e) => e.type === 'offer' && [e.diffId, e.editorId, e.tabName]),
      [[id, 'code', 'pi-write:1']],
    );
    assert.equal(inbox.get(id)!.editorId, 'code');
  });

  test('editorAvailable offers nothing while the route is patchbay-only', () => {
    const { inbox, state } = world({ s1: 'nvim' }, 'patchbay-only');
    inbox.arrive(diff());
    assert.deepEqual(inbox.editorAvailable('s1'), []);
    state.route = 'editor-and-patchbay';
    assert.equal(inbox.editorAvailable('s1').length, 1);
  });

  test('a re-offer does not reuse a tab name another diff took in that editor meanwhile', () => {
    const { inbox } = world({ s1: 'nvim', s2: 'nvim' });
    const first = inbox.arrive(diff({ sessionId: 's1' })).id;
    inbox.offerFailed(first, 'nvim');
    // s2 opens a diff with the same agent tab name while s1's is out of the editor.
    const second = ofType(inbox.arrive(diff({ sessionId: 's2' })).effects, 'offer')[0]!;
    assert.equal(second.tabName, 'pi-write:1');
    const reoffer = ofType(inbox.editorAvailable('s1'), 'offer')[0]!;
    assert.notEqual(reoffer.tabName, second.tabName, 'the re-offer would replace the other session’s diff in the editor');
    assert.equal(inbox.findByEditorTab('nvim', second.tabName), second.diffId);
    assert.equal(inbox.findByEditorTab('nvim', reoffer.tabName), first);
  });

  test('a failure reported by another editor, or for an unknown diff, changes nothing', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    assert.equal(inbox.offerFailed(id, 'code'), false);
    assert.equal(inbox.offerFailed('d404', 'nvim'), false);
    assert.equal(inbox.get(id)!.inEditor, true);
  });
});

describe('the agent goes away or withdraws', () => {
  test('agentGone withdraws every diff of that session, closing editor tabs, and leaves others', () => {
    const { inbox, state } = world({ s1: 'nvim', s2: 'nvim' });
    const a = inbox.arrive(diff({ sessionId: 's1', tabName: 'pi-write:1', reply: 'ra' })).id;
    const b = inbox.arrive(diff({ sessionId: 's1', tabName: 'pi-edit:2', reply: 'rb' })).id;
    const other = inbox.arrive(diff({ sessionId: 's2', tabName: 'pi-edit:3' })).id;
    state.clock = 5000;
    const effects = inbox.agentGone('s1');
    assert.deepEqual(
      effects.map((e) => [e.type, e.diffId]),
      [
        ['closeTab', a],
        ['reply', a],
        ['closeTab', b],
        ['reply', b],
      ],
    );
    assert.deepEqual(
      ofType(effects, 'closeTab').map((e) => [e.editorId, e.tabName]),
      [
        ['nvim', 'pi-write:1'],
        ['nvim', 'pi-edit:2'],
      ],
    );
    assert.deepEqual(
      inbox.pending().map((d) => d.id),
      [other],
    );
    assert.deepEqual(
      inbox.recent().map((r) => [r.id, r.outcome, r.by, r.at]),
      [
        [b, 'withdrawn', 'agent', 5000],
        [a, 'withdrawn', 'agent', 5000],
      ],
    );
    assert.deepEqual(inbox.agentGone('s1'), []);
  });

  test('withdraw closes one diff (close_tab from the agent) and is a no-op the second time', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    const effects = inbox.withdraw(id);
    assert.deepEqual(
      effects.map((e) => e.type),
      ['closeTab', 'reply'],
    );
    assert.deepEqual(ofType(effects, 'reply')[0]!.result, diffRejected('pi-write:1'));
    assert.equal(inbox.recent()[0]!.outcome, 'withdrawn');
    assert.deepEqual(inbox.withdraw(id), []);
    assert.equal(inbox.findByTab('s1', 'pi-write:1'), undefined);
  });

  test('an editor answer after the agent withdrew is dropped', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff());
    inbox.agentGone('s1');
    assert.deepEqual(inbox.editorAnswered(id, 'nvim', { saved: true, contents: 'x' }), []);
  });
});

describe('shutdown', () => {
  test('rejects every pending diff of every session, closing the editor tabs', () => {
    const { inbox } = world({ s1: 'nvim' });
    const a = inbox.arrive(diff({ sessionId: 's1', reply: 'ra' })).id;
    const b = inbox.arrive(diff({ sessionId: 's2', reply: 'rb' })).id;
    const effects = inbox.shutdown();
    assert.deepEqual(
      effects.map((e) => [e.type, e.diffId]),
      [
        ['closeTab', a],
        ['reply', a],
        ['reply', b],
      ],
    );
    for (const reply of ofType(effects, 'reply')) assert.deepEqual(reply.result, diffRejected('pi-write:1'));
    assert.deepEqual(inbox.pending(), []);
    assert.deepEqual(
      inbox.recent().map((r) => [r.outcome, r.by]),
      [
        ['rejected', 'shutdown'],
        ['rejected', 'shutdown'],
      ],
    );
    assert.deepEqual(inbox.shutdown(), []);
  });
});

describe('bookkeeping', () => {
  test('toolOf tells write, edit and other tabs apart', () => {
    assert.equal(toolOf('pi-write:abc'), 'write');
    assert.equal(toolOf('pi-edit:abc'), 'edit');
    // Claude Code's tab does not name its tool: a file that does not exist yet is a write.
    assert.equal(toolOf('✻ [Claude Code] a.txt (998b60) ⧉'), 'edit');
    assert.equal(toolOf('✻ [Claude Code] a.txt (998b60) ⧉', true), 'write');
    assert.equal(toolOf('xpi-write:1'), 'other');
    assert.equal(toolOf(''), 'other');
  });

  test('ids go on from the last one the history used (they do not restart with the daemon)', () => {
    const inbox = new Inbox<string>({ boundEditor: () => null, route: () => 'editor-and-patchbay', now: () => 0 }, 41);
    assert.equal(inbox.arrive(diff()).id, 'd42');
  });

  test('counts, ids and tab lookups are per session', () => {
    const { inbox } = world({});
    const a = inbox.arrive(diff({ sessionId: 's1', tabName: 't1' })).id;
    const b = inbox.arrive(diff({ sessionId: 's1', tabName: 't2' })).id;
    inbox.arrive(diff({ sessionId: 's2', tabName: 't1' }));
    assert.equal(inbox.countFor('s1'), 2);
    assert.equal(inbox.countFor('s2'), 1);
    assert.equal(inbox.countFor('s3'), 0);
    assert.deepEqual(inbox.idsFor('s1'), [a, b]);
    assert.equal(inbox.findByTab('s1', 't2'), b);
    assert.equal(inbox.findByTab('s3', 't1'), undefined);
    // Not in an editor: no editor tab to find it by.
    assert.equal(inbox.findByEditorTab('nvim', 't1'), undefined);
  });

  test('diff ids are never reused', () => {
    const { inbox } = world({});
    const first = inbox.arrive(diff()).id;
    inbox.decide(first, { outcome: 'accept' });
    const second = inbox.arrive(diff()).id;
    assert.notEqual(first, second);
  });
});

describe('what a diff holds', () => {
  test('a diff whose original is still being read is offered but not listed; once read it is, and its bytes count', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id, effects } = inbox.arrive(diff({ oldContents: null, bytes: 1000, readingOriginal: true }));
    assert.equal(ofType(effects, 'offer').length, 1, 'offered at once');
    assert.deepEqual(inbox.pending(), []);
    assert.equal(inbox.heldBytes(), 1000);
    assert.equal(inbox.originalRead(id, { contents: Buffer.from('old text\n'), isNew: false, tooLarge: false }), true);
    assert.equal(inbox.pending()[0]?.id, id);
    assert.equal(inbox.heldBytes(), 1009);
    assert.equal(inbox.get(id)?.oldContents, 'old text\n');
    inbox.decide(id, { outcome: 'reject' });
    assert.equal(inbox.heldBytes(), 0, 'a decided diff holds nothing');
    assert.equal(inbox.originalRead(id, { contents: null, isNew: true, tooLarge: false }), false, 'a late read changes nothing');
  });

  test('an editor saving the proposal byte for byte is matched to it without decoding', () => {
    const { inbox } = world({ s1: 'nvim' });
    const { id } = inbox.arrive(diff({ newContents: 'same\n' }));
    assert.equal(inbox.proposalMatching(id, 'same\n'), 'same\n');
    assert.equal(inbox.proposalMatching(id, 'other\n'), undefined, 'a different text is not the proposal');
  });
});

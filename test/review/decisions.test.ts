// What the agent, the history and the faces are told about a decision: which of the proposal's
// changes were written, whether the person typed anything, and the person's reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resultTexts } from '../../src/protocol/mcp.ts';
import { Inbox, type InboxEffect, type SettledDiff } from '../../src/review/inbox.ts';
import { contentsForChoices, decisionFacts } from '../../src/review/decision-facts.ts';
import { DISK, PROPOSAL, withChanges } from '../ui/review-fixtures.ts';

function inboxWith(bound: string | null = null) {
  const settled: SettledDiff[] = [];
  const inbox = new Inbox<string, string>({ boundEditor: () => bound, route: () => 'editor-and-patchbay', now: () => 5000, settled: (d) => settled.push(d) });
  const { id } = inbox.arrive({
    sessionId: 's1',
    path: '/w/inventory.ts',
    tabName: 'pi-edit:1',
    newContents: PROPOSAL,
    oldContents: DISK,
    isNew: false,
    tooLarge: false,
    bytes: 0,
    agent: 'pi-ide',
    reply: 'r1',
  });
  return { inbox, id, settled };
}

const replyTexts = (effects: InboxEffect<string, string>[]): string[] => {
  const reply = effects.find((e) => e.type === 'reply');
  assert.ok(reply?.type === 'reply', 'the agent is answered');
  return resultTexts(reply.result) ?? [];
};

test('accepting 2 of 3 changes writes them, tells the agent which change was rejected, and is not "edited"', () => {
  const { inbox, id, settled } = inboxWith();
  const outcome = inbox.decide(id, { outcome: 'accept', contents: contentsForChoices(DISK, PROPOSAL, [0, 2]), taken: [0, 2], reason: 'keep the loop' })!;
  const [marker, written, told] = replyTexts(outcome.effects);
  assert.equal(marker, 'FILE_SAVED');
  assert.equal(written, withChanges(1, 3));
  assert.equal(
    told,
    'Patchbay: accepted 2 of 3 changes of your edit to /w/inventory.ts; change 2 (line 15 of your proposal) rejected: the file keeps its original lines there. ' +
      'The file now differs from your proposal: read /w/inventory.ts again before you change it further. Their reason: "keep the loop".',
  );
  assert.deepEqual(outcome.record.changes, { total: 3, accepted: [1, 3], rejected: [2] });
  assert.equal(outcome.record.edited, false);
  assert.equal(outcome.record.reason, 'keep the loop');
  assert.equal(settled[0]!.decision!.told, told, 'the history keeps what the agent was told');
});

test('per-change choices with typing on top are both recorded', () => {
  const { inbox, id } = inboxWith();
  const contents = `${contentsForChoices(DISK, PROPOSAL, [1])}// typed\n`;
  const outcome = inbox.decide(id, { outcome: 'accept', contents, taken: [1] })!;
  assert.deepEqual(outcome.record.changes, { total: 3, accepted: [2], rejected: [1, 3] });
  assert.equal(outcome.record.edited, true);
  assert.match(replyTexts(outcome.effects)[2]!, /changes 1 \(line 1 of your proposal\), 3 \(lines 2\d–\d\d of your proposal\) rejected.*The person also edited your proposal/);
});

test('a reject with a reason tells the agent the reason; a plain one stays DIFF_REJECTED alone', () => {
  const first = inboxWith();
  const texts = replyTexts(first.inbox.decide(first.id, { outcome: 'reject', reason: 'wrong file' })!.effects);
  assert.deepEqual(texts, ['DIFF_REJECTED', 'pi-edit:1', 'Patchbay: the person rejected your edit of /w/inventory.ts; the file is unchanged. Their reason: "wrong file".']);
  const second = inboxWith();
  assert.deepEqual(replyTexts(second.inbox.decide(second.id, { outcome: 'reject' })!.effects), ['DIFF_REJECTED', 'pi-edit:1']);
});

test("an editor's save that keeps some changes is recognised, and the agent hears which", () => {
  const { inbox, id } = inboxWith('nvim');
  const effects = inbox.editorAnswered(id, 'nvim', { saved: true, contents: withChanges(2) }, 'as-sent');
  const reply = effects.find((e) => e.type === 'reply');
  assert.ok(reply?.type === 'reply');
  assert.equal(reply.asSent, undefined, 'answered anew, with the words');
  assert.deepEqual(reply.record.changes, { total: 3, accepted: [2], rejected: [1, 3] });
  assert.equal(reply.record.edited, false);
  assert.match(resultTexts(reply.result)![2]!, /^Patchbay: accepted 1 of 3 changes/);
});

test("an editor's save with the person's own typing goes to the agent as the editor sent it", () => {
  const { inbox, id } = inboxWith('nvim');
  const effects = inbox.editorAnswered(id, 'nvim', { saved: true, contents: 'typed in nvim\n' }, 'as-sent');
  const reply = effects.find((e) => e.type === 'reply');
  assert.ok(reply?.type === 'reply');
  assert.equal(reply.asSent, 'as-sent');
  assert.equal(reply.record.edited, true);
  assert.equal(reply.record.told, undefined);
});

test('choices that name no change of the proposal are refused, saying how many there are', () => {
  assert.throws(() => contentsForChoices(DISK, PROPOSAL, [3]), /the proposal has 3 changes; there is no change 4/);
  assert.throws(() => contentsForChoices(null, PROPOSAL, [0]), /file on disk is known/);
  assert.deepEqual(decisionFacts({ path: 'a', original: DISK, proposal: PROPOSAL, accepted: true, by: 'person' }), { edited: false });
});

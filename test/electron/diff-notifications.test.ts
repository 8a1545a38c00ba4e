import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DiffSummary, Snapshot } from '../../src/api/types.ts';
import { DiffNotifications, dueNotifications } from '../../electron/shared/diff-notifications.ts';
import type { Clock } from '../../electron/shared/diff-notifications.ts';

function diff(id: string, createdAt: number, more: Partial<DiffSummary> = {}): DiffSummary {
  return { id, sessionId: 's1', editorId: null, tool: 'edit', path: `/w/${id}.ts`, tabName: id, status: 'pending', createdAt, isNew: false, tooLarge: false, inEditor: false, ...more };
}

function snapshot(diffs: DiffSummary[]): Snapshot {
  return {
    version: '0', pid: 1, paused: false, door: { port: 1, lockfiles: [], problems: [] }, editors: [], invalidLockfiles: [], otherLockfiles: [],
    sessions: [{ id: 's1', kind: 'pi', dialect: 'pi', clientName: null, pid: 5, cwd: '/w/app', command: null, identity: 'known', connectedAt: 0, lastActiveAt: 0, editorId: null, reason: 'none', automaticEditorId: null, pendingDiffs: diffs.length }],
    idleAgents: [], diffs, history: [], settings: {} as Snapshot['settings'], hostedPi: {} as Snapshot['hostedPi'], hosted: [], remotes: [], warnings: [],
    corePid: 2, core: { reason: 'start', startedAt: 0, restarts: 0, daemonSince: 0 }, notices: [], notReconnected: [],
  };
}

/** A clock whose timers run only when the test advances it. */
function manualClock(): Clock & { advance(ms: number): void; timers: number } {
  let now = 0;
  let next: { at: number; fn: () => void } | null = null;
  const clock = {
    now: () => now,
    setTimeout: (fn: () => void, ms: number) => {
      next = { at: now + ms, fn };
      return next;
    },
    clearTimeout: (handle: unknown) => {
      if (next === handle) next = null;
    },
    advance(ms: number) {
      now += ms;
      const due = next;
      if (due !== null && due.at <= now) {
        next = null;
        due.fn();
      }
    },
    get timers() {
      return next === null ? 0 : 1;
    },
  };
  return clock;
}

test('a diff is due once it has waited, is pending, not in an editor and not yet announced', () => {
  const diffs = [
    diff('old', 0),
    diff('young', 2500),
    diff('shown', 0, { inEditor: true }),
    diff('done', 0, { status: 'accepted' }),
    diff('told', 0),
  ];
  assert.deepEqual(dueNotifications(diffs, new Set(['told']), 3000, 3000), { due: [diffs[0]], nextCheckAt: 5500 });
  assert.deepEqual(dueNotifications([], new Set(), 0, 3000), { due: [], nextCheckAt: null });
});

test('the notification comes 3 s after the diff arrives, once, and a click opens that diff', () => {
  const clock = manualClock();
  const shown: { title: string; body: string; click: () => void }[] = [];
  const opened: string[] = [];
  const notifications = new DiffNotifications({ show: (c, click) => void shown.push({ ...c, click }) }, (id) => void opened.push(id), clock, 3000);

  notifications.update(snapshot([diff('d1', 0)]));
  clock.advance(2999);
  assert.equal(shown.length, 0);
  clock.advance(1);
  assert.deepEqual(shown.map((s) => [s.title, s.body]), [['Edit waiting for review', 'd1.ts from pi · app']]);
  notifications.update(snapshot([diff('d1', 0)]));
  clock.advance(10_000);
  assert.equal(shown.length, 1, 'announced once');
  shown[0]!.click();
  assert.deepEqual(opened, ['d1']);
  notifications.close();
});

test('a diff decided or shown in the editor before 3 s gives no notification', () => {
  const clock = manualClock();
  const shown: string[] = [];
  const notifications = new DiffNotifications({ show: (c) => void shown.push(c.title) }, () => {}, clock, 3000);
  notifications.update(snapshot([diff('a', 0), diff('b', 0)]));
  clock.advance(1000);
  notifications.update(snapshot([diff('a', 0, { status: 'rejected' }), diff('b', 0, { inEditor: true })]));
  clock.advance(5000);
  assert.deepEqual(shown, []);
  assert.equal(clock.timers, 0, 'no timer left running');
});

test('several diffs due together make one notification', () => {
  const clock = manualClock();
  const shown: { title: string; body: string }[] = [];
  const opened: string[] = [];
  const notifications = new DiffNotifications({ show: (c, click) => (shown.push(c), click()) }, (id) => void opened.push(id), clock, 3000);
  clock.advance(4000);
  notifications.update(snapshot([diff('b', 500), diff('a', 100)]));
  assert.deepEqual(shown, [{ title: '2 edits waiting for review', body: 'a.ts, b.ts', diffId: 'a' }]);
  assert.deepEqual(opened, ['a'], 'the click opens the oldest');
});

test('closing stops the pending timer', () => {
  const clock = manualClock();
  const shown: string[] = [];
  const notifications = new DiffNotifications({ show: (c) => void shown.push(c.title) }, () => {}, clock, 3000);
  notifications.update(snapshot([diff('d1', 0)]));
  assert.equal(clock.timers, 1);
  notifications.close();
  notifications.close();
  assert.equal(clock.timers, 0);
  notifications.update(snapshot([diff('d2', 0)]));
  clock.advance(5000);
  assert.deepEqual(shown, []);
});

import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { ProcessInfo } from '../../src/discovery/peer-process.ts';
import { DisposableStore } from '../../src/lifecycle/disposables.ts';
import { lookUpProcess, type LookupPlan } from '../../src/relay/process-lookup.ts';
import { waitFor } from '../peers/wait.ts';

const plan: LookupPlan = { firstAnswerMs: 200, firstRetryMs: 5, maxRetryMs: 20, giveUpMs: 1000 };
const info: ProcessInfo = { pid: 42, cwd: '/w/app', command: 'pi', startedAt: null };

/** Patchbay's timers are unref'd (sockets keep the daemon alive); here the test must. */
function keepAlive(t: TestContext): void {
  const timer = setInterval(() => {}, 1000);
  t.after(() => clearInterval(timer));
}

function record() {
  const found: ProcessInfo[] = [];
  const gaveUp: string[] = [];
  return { found, gaveUp, outcome: { found: (i: ProcessInfo) => found.push(i), gaveUp: (why: string) => gaveUp.push(why) } };
}

test('a lookup that fails twice and then answers finds the process, and stops asking', async () => {
  const r = record();
  const timers = new DisposableStore();
  let calls = 0;
  const answers = [() => Promise.reject(new Error('scan failed')), () => Promise.resolve(null), () => Promise.resolve(info)];
  await lookUpProcess(() => answers[Math.min(calls++, 2)]!(), timers, r.outcome, plan);
  assert.equal(r.found.length, 0, 'the first answer was a failure');
  await waitFor(() => r.found.length === 1, { message: 'found on the third attempt' });
  assert.deepEqual(r.found[0], info);
  assert.equal(calls, 3);
  assert.equal(timers.size, 0, 'no timer left once found');
  assert.deepEqual(r.gaveUp, []);
});

test('an answer later than the first deadline is still used (under load a /proc scan takes seconds)', async (t) => {
  keepAlive(t);
  const r = record();
  const timers = new DisposableStore();
  let answer!: (value: ProcessInfo) => void;
  const began = Date.now();
  await lookUpProcess(() => new Promise<ProcessInfo>((resolve) => (answer = resolve)), timers, r.outcome, plan);
  assert.ok(Date.now() - began >= plan.firstAnswerMs - 5, 'requests waited for the first deadline');
  assert.equal(r.found.length, 0);
  answer(info);
  await waitFor(() => r.found.length === 1);
  assert.equal(timers.size, 0);
});

test('a search that never finds anything gives up, saying what the last attempt found', async (t) => {
  keepAlive(t);
  const r = record();
  const timers = new DisposableStore();
  let calls = 0;
  await lookUpProcess(() => (calls++, Promise.reject(new Error('EACCES /proc/1/fd'))), timers, r.outcome, { ...plan, giveUpMs: 60 });
  await waitFor(() => r.gaveUp.length === 1, { message: 'gave up' });
  assert.match(r.gaveUp[0]!, /no answer within 60 ms \(last: EACCES \/proc\/1\/fd\)/);
  const callsWhenGivenUp = calls;
  // The marker: a search with the same plan that keeps going makes three more attempts meanwhile.
  const control = new DisposableStore();
  t.after(() => control.dispose());
  let controlCalls = 0;
  void lookUpProcess(() => (controlCalls++, Promise.resolve(null)), control, record().outcome, { ...plan, giveUpMs: 60_000 });
  await waitFor(() => controlCalls >= 3, { message: 'the control search retried' });
  assert.equal(calls, callsWhenGivenUp, 'no attempts once given up');
  assert.equal(timers.size, 0);
  assert.deepEqual(r.found, []);
});

test('closing the session stops the search and releases whoever waits for the first answer', async () => {
  const r = record();
  const timers = new DisposableStore();
  const first = lookUpProcess(() => new Promise<ProcessInfo | null>(() => {}), timers, r.outcome, { ...plan, firstAnswerMs: 60_000 });
  timers.dispose();
  await first;
  assert.equal(timers.size, 0);
  assert.deepEqual(r.found, []);
});

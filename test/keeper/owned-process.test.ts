// A child the keeper runs for its core (a hosted pi): its stdout reaches a core as whole lines
// only, waits while no core is attached (a restart), and the dialogs it asked and nobody
// answered are remembered for the next core.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OwnedProcess } from '../../src/keeper/owned-process.ts';
import { waitFor } from '../peers/wait.ts';

/** A child that writes `pieces` to stdout 30 ms apart, echoes stdin lines to stderr, and exits when stdin ends. */
function child(pieces: string[]): OwnedProcess {
  const script = `
    const pieces = ${JSON.stringify(pieces)};
    let i = 0;
    const next = () => { if (i < pieces.length) { process.stdout.write(pieces[i++]); setTimeout(next, 30); } };
    next();
    process.stdin.on('data', (d) => process.stderr.write(d));
    process.stdin.on('end', () => setTimeout(() => process.exit(3), 100));`;
  return new OwnedProcess({ id: 'c1', command: process.execPath, args: ['-e', script], cwd: process.cwd(), env: { ...process.env } as Record<string, string>, detached: false, meta: { hosted: 'pi-1' } }, () => {});
}

function collect(owned: OwnedProcess) {
  const out: string[] = [];
  const err: string[] = [];
  let exit: { code: number | null; signal: string | null } | null = null;
  owned.attach({ out: (t) => out.push(t), err: (t) => err.push(t), exit: (code, signal) => (exit = { code, signal }) });
  return { out, err, exit: () => exit };
}

test('stdout reaches the core as whole lines only, however the child cuts them', async () => {
  const owned = child(['{"a":', '1}\n{"b":2}\n{"c"', ':3}\n']);
  const seen = collect(owned);
  await waitFor(() => seen.out.join('') === '{"a":1}\n{"b":2}\n{"c":3}\n', { message: () => JSON.stringify(seen.out) });
  for (const text of seen.out) assert.ok(text.endsWith('\n'), `a whole line: ${JSON.stringify(text)}`);
  owned.endInput();
  await waitFor(() => seen.exit()?.code === 3, { message: 'its exit' });
});

test('with no core attached, lines and the exit wait, then come in order to the next core', async () => {
  const owned = child(['one\n', 'two\n']);
  owned.attach(null);
  await owned.started;
  await new Promise((resolve) => setTimeout(resolve, 200));
  owned.endInput();
  await waitFor(() => owned.exited !== null, { message: 'it exited' });
  const seen = collect(owned);
  assert.deepEqual(seen.out, ['one\n', 'two\n']);
  assert.equal(seen.exit()?.code, 3);
});

test('a dialog pi asked is remembered until a line on its stdin answers it', async () => {
  const ask = (id: string, method: string) => `${JSON.stringify({ type: 'extension_ui_request', id, method, title: 'Sure?' })}\n`;
  const owned = child([ask('q1', 'confirm') + ask('n1', 'notify'), ask('q2', 'select')]);
  collect(owned);
  await waitFor(() => owned.unansweredDialogs().length === 2, { message: () => owned.unansweredDialogs().join('') });
  assert.deepEqual(owned.unansweredDialogs().map((l) => JSON.parse(l).id), ['q1', 'q2'], 'dialogs only, not notifications');
  owned.write(`${JSON.stringify({ type: 'extension_ui_response', id: 'q1', confirmed: true })}\n`);
  assert.deepEqual(owned.unansweredDialogs().map((l) => JSON.parse(l).id), ['q2']);
  owned.endInput();
});

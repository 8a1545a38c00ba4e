// The notices a crash leaves, and agents that did not come back after a stop, at the top of
// every view until dealt with: what became of each waiting edit, a Dismiss button that works,
// and what to type to bring an agent back.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { SHOTS, openFakeUi, skipWithoutChromium } from './chromium.ts';
import { waitFor } from '../peers/wait.ts';

test('a crash trace lists each file with what became of it and can be dismissed; an agent that did not reconnect is named with what to type', { skip: skipWithoutChromium }, async (t) => {
  const { ui, hub } = await openFakeUi(t, 'ui-notices');
  const at = Date.UTC(2026, 10, 27, 9, 41, 5);
  hub.state.notices = [
    {
      id: `crash-trace-${at}`,
      kind: 'crash-trace',
      at,
      message: 'Patchbay stopped unexpectedly with 2 edits waiting for review: …',
      files: [
        { diffId: 'd7', path: '/work/proj/a.ts', agent: 'pi-ide', sessionId: 's3', verdict: 'written' },
        { diffId: 'd8', path: '/work/proj/b.ts', agent: 'claude-code', sessionId: 's4', verdict: 'not-written' },
      ],
    },
  ];
  hub.state.notReconnected = [
    { sessionId: 's3', pid: 31337, kind: 'pi', cwd: '/work/proj', clientName: 'pi-ide', since: at, hint: 'type /ide in that pi to connect it again' },
  ];
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });

  const trace = ui.page.locator(`[data-notice="crash-trace-${at}"]`);
  await trace.waitFor();
  const text = await trace.innerText();
  assert.match(text, /Patchbay stopped unexpectedly with 2 edits waiting for review:/);
  assert.match(text, /\/work\/proj\/a\.ts: written without review \(d7, session s3, pi-ide\)/);
  assert.match(text, /\/work\/proj\/b\.ts: not written \(d8, session s4, claude-code\)/);
  const lost = ui.page.locator('.not-reconnected');
  assert.match(await lost.innerText(), /An agent connected before Patchbay last stopped has not come back, so its edits are written without review:\s*pi-ide \(pid 31337, was s3, in \/work\/proj\): type \/ide in that pi/);
  await ui.page.screenshot({ path: join(SHOTS, 'notices.png') });

  await trace.getByRole('button', { name: 'Dismiss' }).click();
  await waitFor(() => hub.calls.some((c) => c.method === 'notices.dismiss'), { message: 'the dismissal sent' });
  assert.deepEqual(
    hub.calls.filter((c) => c.method === 'notices.dismiss').map((c) => c.params),
    [{ id: `crash-trace-${at}` }],
  );
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
  await trace.waitFor({ state: 'detached' });
});

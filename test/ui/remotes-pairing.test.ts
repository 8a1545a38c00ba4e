// The Pairing view shows remotes (how each is doing and why, which folder there is which here)
// and remote and worktree sessions for what they are, and an edit from a remote says where.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RemoteView, SessionView } from '../../src/api/types.ts';
import { openFakeUi, SHOTS, skipWithoutChromium } from './chromium.ts';

const NOW = Date.now();

const remotes: RemoteView[] = [
  {
    name: 'devbox',
    destination: 'me@devbox',
    maps: [{ remote: '/home/me/proj', local: '/work/proj' }],
    state: 'connected',
    reason: null,
    remotePort: 41234,
    lockfiles: ['/home/me/.pi/ide/41234.lock', '/home/me/.claude/ide/41234.lock'],
    problems: [],
    since: NOW - 60_000,
    retryAt: null,
  },
  {
    name: 'box2',
    destination: 'box2',
    maps: [{ remote: '/srv/app', local: '/work/app' }],
    state: 'failed',
    reason: `box2's host key is not known here: run "ssh box2" once in a terminal to check and accept it`,
    remotePort: null,
    lockfiles: [],
    problems: [],
    since: NOW - 5000,
    retryAt: NOW + 30_000,
  },
];

const base = {
  dialect: 'pi' as const,
  kind: 'pi' as const,
  clientName: 'pi-ide',
  command: 'pi',
  identity: 'known' as const,
  connectedAt: NOW - 30_000,
  lastActiveAt: NOW - 1000,
  editorId: 'nvim-proj',
  automaticEditorId: 'nvim-proj',
  pendingDiffs: 0,
};

const sessions: SessionView[] = [
  { ...base, id: 's7', pid: 812, cwd: '/home/me/proj', remote: 'devbox', localCwd: '/work/proj', reason: 'cwd' },
  { ...base, id: 's8', pid: 9001, cwd: '/work/proj-feature', reason: 'worktree' },
];

test('the pairing view shows remotes, a remote session and a worktree session for what they are', { skip: skipWithoutChromium }, async (t) => {
  const { hub, ui, page } = await openFakeUi(t, 'ui-remotes', '#/pairing');
  hub.state.remotes = remotes;
  hub.state.sessions = sessions;
  hub.state.editors[0]!.worktrees = ['/work/proj-feature'];
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });

  const devbox = page.getByRole('listitem', { name: 'Remote devbox' });
  await devbox.getByText('connected').waitFor();
  await devbox.getByText('port 41234 over there leads here', { exact: false }).waitFor();
  await devbox.getByText('/home/me/.pi/ide/41234.lock').waitFor();
  const box2 = page.getByRole('listitem', { name: 'Remote box2' });
  await box2.getByText('down').waitFor();
  await box2.getByText(/host key is not known here: run "ssh box2" once/).waitFor();

  const remote = page.getByRole('article', { name: 'Session pi · proj on devbox' });
  await remote.getByText('devbox:/home/me/proj').waitFor();
  await remote.getByText('/work/proj', { exact: true }).waitFor();
  assert.match(await remote.innerText(), /pid 812 on devbox/);
  // Its folder here matches the editor's: no "outside its folder" warning.
  assert.equal(await remote.locator('.warning-text').count(), 0);

  const worktree = page.getByRole('article', { name: 'Session pi · proj-feature' });
  await worktree.getByText('the session works in a git worktree of its repository').waitFor();
  assert.equal(await worktree.locator('.warning-text').count(), 0, 'another worktree of the editor’s repository is not "another project"');
  await page.getByRole('article', { name: /^Editor / }).getByText('/work/proj-feature').waitFor();
  await page.screenshot({ path: join(SHOTS, 'pairing-remotes.png'), fullPage: true });
  assert.deepEqual(ui.consoleErrors, []);
});

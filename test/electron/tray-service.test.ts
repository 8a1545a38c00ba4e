import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DiffSummary, Snapshot } from '../../src/api/types.ts';
import { TrayService, trayIconFile } from '../../electron/main/tray-service.ts';
import type { MenuTemplateItem, TrayIconState } from '../../electron/main/tray-service.ts';
import type { MenuAction } from '../../electron/main/menu-model.ts';

interface FakeTray {
  images: string[];
  menus: MenuTemplateItem[][];
  tooltips: string[];
  titles: string[];
  clicks: (() => void)[];
  destroyed: number;
}

function setup(platform: NodeJS.Platform = 'linux', dark = { value: false }) {
  const tray: FakeTray = { images: [], menus: [], tooltips: [], titles: [], clicks: [], destroyed: 0 };
  const actions: MenuAction[] = [];
  const service = new TrayService<string, MenuTemplateItem[]>({
    createTray: (image) => {
      tray.images.push(image);
      return {
        setImage: (i) => void tray.images.push(i),
        setToolTip: (t) => void tray.tooltips.push(t),
        setContextMenu: (m) => void tray.menus.push(m),
        setTitle: (t) => void tray.titles.push(t),
        on: (_event, listener) => void tray.clicks.push(listener),
        destroy: () => void tray.destroyed++,
      };
    },
    buildMenu: (template) => template,
    icon: (state: TrayIconState) => trayIconFile(platform, state),
    isDark: () => dark.value,
    platform,
    onAction: (a) => void actions.push(a),
  });
  return { tray, actions, service, dark };
}

function diff(id: string): DiffSummary {
  return { id, sessionId: 's', editorId: null, tool: 'write', path: `/p/${id}`, tabName: id, status: 'pending', createdAt: 0, isNew: true, tooLarge: false, inEditor: false };
}

function snapshot(diffs: DiffSummary[], paused = false): Snapshot {
  return {
    version: '0', pid: 1, paused, door: { port: 1, lockfiles: [], problems: [] }, editors: [], invalidLockfiles: [], otherLockfiles: [], sessions: [],
    idleAgents: [], diffs, history: [], settings: {} as Snapshot['settings'], hostedPi: {} as Snapshot['hostedPi'], hosted: [], remotes: [], warnings: [],
    corePid: 2, core: { reason: 'start', startedAt: 0, restarts: 0, daemonSince: 0 }, notices: [], notReconnected: [],
  };
}

test('the tray icon switches to its pending variant while diffs wait, and back', () => {
  const { tray, service } = setup('linux');
  assert.deepEqual(tray.images, ['tray-light.png']);
  service.update(snapshot([diff('d1')]));
  assert.equal(tray.images.at(-1), 'tray-light-pending.png');
  assert.equal(tray.tooltips.at(-1), 'Patchbay — 1 edit waiting for review');
  service.update(snapshot([diff('d1'), diff('d2')]));
  assert.equal(tray.images.length, 2, 'same badge state, no new image');
  service.update(snapshot([]));
  assert.equal(tray.images.at(-1), 'tray-light.png');
});

test('macOS gets template images and the pending count as the tray title', () => {
  const { tray, service } = setup('darwin');
  assert.deepEqual(tray.images, ['trayTemplate.png']);
  service.update(snapshot([diff('d1'), diff('d2'), diff('d3')]));
  assert.equal(tray.images.at(-1), 'trayPendingTemplate.png');
  assert.equal(tray.titles.at(-1), '3');
  service.update(snapshot([]));
  assert.equal(tray.titles.at(-1), '');
});

test('a switch to the dark theme swaps in the light-on-dark icon', () => {
  const { tray, service, dark } = setup('win32');
  service.update(snapshot([diff('d1')]));
  dark.value = true;
  service.themeChanged();
  assert.equal(tray.images.at(-1), 'tray-dark-pending.png');
});

test('the menu is rebuilt when the snapshot changes what it shows, not otherwise', () => {
  const { tray, service, actions } = setup();
  service.update(snapshot([]));
  assert.equal(tray.menus.length, 1);
  service.update(snapshot([]));
  assert.equal(tray.menus.length, 1, 'an identical menu is not rebuilt');
  service.update(snapshot([], true));
  assert.equal(tray.menus.length, 2);
  const resume = tray.menus[1]!.find((i) => i.label === 'Resume routing');
  assert.ok(resume?.click);
  resume.click();
  assert.deepEqual(actions, [{ kind: 'setPaused', paused: false }]);
});

test('while reconnecting the menu offers only Quit, and the next snapshot brings the full menu back', () => {
  const { tray, service, actions } = setup();
  service.update(snapshot([diff('d1')]));
  service.reconnecting('the connection to Patchbay closed');
  assert.deepEqual(
    tray.menus.at(-1)!.map((i) => i.label),
    ['Reconnecting to Patchbay…', 'the connection to Patchbay closed', undefined, 'Quit Patchbay'],
  );
  assert.equal(tray.tooltips.at(-1), 'Patchbay — reconnecting');
  tray.menus.at(-1)!.at(-1)!.click!();
  assert.deepEqual(actions, [{ kind: 'quit' }]);

  service.update(snapshot([diff('d1')]));
  assert.ok(tray.menus.at(-1)!.some((i) => i.label === 'Review pending edits (1)…'), 'the same snapshot as before still rebuilds the menu');
  assert.equal(tray.tooltips.at(-1), 'Patchbay — 1 edit waiting for review');
});

test('on Windows a left click opens the review when diffs wait, else the main window', () => {
  const { tray, service, actions } = setup('win32');
  assert.equal(tray.clicks.length, 1);
  tray.clicks[0]!();
  service.update(snapshot([diff('d1')]));
  tray.clicks[0]!();
  assert.deepEqual(actions, [{ kind: 'openMain' }, { kind: 'openReview' }]);
  assert.equal(setup('linux').tray.clicks.length, 0);
});

test('closing the tray destroys it once, and later snapshots are ignored', () => {
  const { tray, service } = setup();
  service.close();
  service.close();
  service.update(snapshot([diff('d1')]));
  assert.equal(tray.destroyed, 1);
  assert.equal(tray.menus.length, 0);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginItemService, autostartEntry } from '../../electron/main/login-item.ts';
import type { LoginItemDeps } from '../../electron/main/login-item.ts';
import { quitPrompt } from '../../electron/main/quit-prompt.ts';

function loginDeps(platform: NodeJS.Platform) {
  const log: string[] = [];
  const deps: LoginItemDeps = {
    platform,
    setLoginItemSettings: (s) => void log.push(`login ${s.openAtLogin} ${s.args?.join(' ')}`),
    autostartFile: '/home/me/.config/autostart/patchbay.desktop',
    writeFile: (path, text) => void log.push(`write ${path} ${text.split('\n').find((l) => l.startsWith('Exec='))}`),
    removeFile: (path) => void log.push(`remove ${path}`),
    launchCommand: ['/opt/Patchbay/patchbay'],
  };
  return { deps, log };
}

test('launch at login follows the setting through the system call on macOS and Windows', () => {
  const { deps, log } = loginDeps('darwin');
  const service = new LoginItemService(deps);
  service.apply(true);
  service.apply(true);
  service.apply(false);
  assert.deepEqual(log, ['login true --hidden', 'login false --hidden']);
});

test('on Linux launch at login writes and removes an XDG autostart entry', () => {
  const { deps, log } = loginDeps('linux');
  const service = new LoginItemService(deps);
  service.apply(false);
  service.apply(true);
  service.apply(false);
  assert.deepEqual(log, [
    'remove /home/me/.config/autostart/patchbay.desktop',
    'write /home/me/.config/autostart/patchbay.desktop Exec=/opt/Patchbay/patchbay --hidden',
    'remove /home/me/.config/autostart/patchbay.desktop',
  ]);
});

test('the autostart entry quotes paths with spaces', () => {
  assert.match(autostartEntry(['/opt/My Apps/electron', '/src/patch bay']), /^Exec="\/opt\/My Apps\/electron" "\/src\/patch bay" --hidden$/m);
});

test('quitting asks first only when diffs are pending or a hosted pi is working', () => {
  assert.equal(quitPrompt(0), null);
  assert.equal(quitPrompt(0, 0), null);
  const one = quitPrompt(1);
  assert.equal(one?.message, '1 edit is waiting for review');
  assert.equal(one?.buttons[one.cancelId], 'Cancel');
  assert.equal(quitPrompt(3)?.message, '3 edits are waiting for review');
  const working = quitPrompt(0, 2);
  assert.equal(working?.message, '2 pi sessions are working');
  assert.match(working?.detail ?? '', /can be resumed after/);
  assert.equal(working?.buttons[0], 'Stop them and quit');
  assert.equal(quitPrompt(1, 1)?.message, '1 edit is waiting for review, and 1 pi session is working');
});

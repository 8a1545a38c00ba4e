import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectElectron, needsBuild } from '../../src/cli/start.ts';

const moduleNotFound = (): never => {
  throw Object.assign(new Error("Cannot find module 'electron'"), { code: 'MODULE_NOT_FOUND' });
};

test('npm start finds the Electron binary the electron package names', () => {
  const status = detectElectron(() => '/repo/node_modules/electron/dist/electron', (p) => p === '/repo/node_modules/electron/dist/electron');
  assert.deepEqual(status, { found: true, binary: '/repo/node_modules/electron/dist/electron' });
});

test('npm start explains why it runs headless', () => {
  const cases: { load: () => unknown; exists?: boolean; reason: RegExp }[] = [
    { load: moduleNotFound, reason: /package "electron" is not installed/ },
    {
      load: () => {
        throw new Error('Electron failed to install correctly, please delete node_modules/electron and try installing again');
      },
      reason: /binary was never downloaded; no internet during npm install\?/,
    },
    { load: () => '/gone/electron', exists: false, reason: /names \/gone\/electron, which does not exist/ },
    { load: () => ({}), reason: /did not name a binary/ },
  ];
  for (const c of cases) {
    const status = detectElectron(c.load, () => c.exists ?? true);
    assert.equal(status.found, false);
    assert.match(status.found ? '' : status.reason, c.reason);
  }
});

test('the app is rebuilt when an output is missing or older than its sources', () => {
  assert.equal(needsBuild([200, 300], 100), false);
  assert.equal(needsBuild([200, null], 100), true);
  assert.equal(needsBuild([200, 300], 250), true);
});

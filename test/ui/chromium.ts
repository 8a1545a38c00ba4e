// Debian's Chromium as the browser tests drive it (playwright-core never downloads one).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = '/usr/bin/chromium';
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Screenshots the tests save, to be looked at. */
export const SHOTS = join(ROOT, 'test-results', 'ui');
/** Headless, and nothing that would reach for the network this machine does not have. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** false, or why the browser tests are skipped. */
export const skipWithoutChromium: false | string = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

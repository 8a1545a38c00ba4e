// `npm run dist`: the desktop installers, packed by electron-builder from the Electron binary
// `npm install` downloaded. Without that binary electron-builder would download one itself and,
// offline, fail partway; this says so first and builds nothing.
//   node --import tsx src/cli/dist.ts [electron-builder arguments…]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale, detectElectron, type ElectronStatus } from './start.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Pinned: `npm exec` fetches exactly this from the registry. */
export const ELECTRON_BUILDER = 'electron-builder@26.17.0';
const CONFIG = 'resources/electron-builder.json';

/**
 * The folder electron-builder packs Electron from (`electronDist`): the npm package's `dist/`,
 * which holds the binary (on macOS inside Electron.app). Null when the binary is not there.
 */
export function electronDist(status: ElectronStatus): string | null {
  if (!status.found) return null;
  const marker = `${sep}dist${sep}`;
  const at = status.binary.lastIndexOf(marker);
  return at < 0 ? dirname(status.binary) : status.binary.slice(0, at + marker.length - 1);
}

export function missingElectronMessage(reason: string): string {
  return [
    `npm run dist: Electron's binary is not available (${reason}), so no installer can be built.`,
    'Install it with internet access (npm install without ELECTRON_SKIP_BINARY_DOWNLOAD, or',
    '`node node_modules/electron/install.js`), then run `npm run dist` again. electron-builder also',
    "downloads its packaging tools (AppImage, NSIS, dmg) on first use.",
  ].join('\n');
}

export function runDist(argv: string[], env: NodeJS.ProcessEnv): number {
  const status = detectElectron(() => createRequire(import.meta.url)('electron'), existsSync);
  const dist = electronDist(status);
  if (dist === null) {
    console.error(missingElectronMessage(status.found ? 'no dist folder' : status.reason));
    return 1;
  }
  if (!buildIfStale('desktop', env, true)) return 1;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['exec', '--yes', `--package=${ELECTRON_BUILDER}`, '--', 'electron-builder', '--config', CONFIG, `-c.electronDist=${dist}`, ...argv];
  const result = spawnSync(npm, args, { cwd: ROOT, env, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.error) console.error(`npm run dist: could not run ${ELECTRON_BUILDER}: ${result.error.message}`);
  return result.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = runDist(process.argv.slice(2), process.env);
}

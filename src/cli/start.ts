// `npm start` / `patchbay start`: the desktop app when Electron's binary is installed,
// otherwise the headless daemon with its browser UI, saying which and why.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type ElectronStatus = { found: true; binary: string } | { found: false; reason: string };

/**
 * What `require('electron')` tells: the binary's path, or why there is none. The npm
 * package downloads the binary in its install script, so it can be present without it.
 */
export function detectElectron(loadElectron: () => unknown, exists: (path: string) => boolean): ElectronStatus {
  let loaded: unknown;
  try {
    loaded = loadElectron();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      return { found: false, reason: 'the optional npm package "electron" is not installed' };
    }
    const message = (err as Error).message;
    return /failed to install correctly/.test(message)
      ? { found: false, reason: 'the npm package "electron" is installed but its binary was never downloaded; no internet during npm install?' }
      : { found: false, reason: `the npm package "electron" failed to load: ${message}` };
  }
  if (typeof loaded !== 'string') return { found: false, reason: 'the "electron" package did not name a binary' };
  if (!exists(loaded)) return { found: false, reason: `the npm package "electron" names ${loaded}, which does not exist` };
  return { found: true, binary: loaded };
}

/** The build outputs each face needs. */
export const DESKTOP_OUTPUTS = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
export const BROWSER_OUTPUTS = ['out/renderer/index.html'];
/** What ends up in those outputs: the sources, the build's configuration, the packages (npm rewrites the marker). */
const BUILD_INPUTS = ['electron.vite.config.ts', 'node_modules/.package-lock.json'];
export const DESKTOP_SOURCES = ['electron', 'renderer', 'src', ...BUILD_INPUTS];
export const BROWSER_SOURCES = ['renderer', 'electron/shared', 'src/api', 'src/web/browser-socket.ts', ...BUILD_INPUTS];

/** Rebuild when an output is missing or older than the newest source (a stale UI misleads). */
export function needsBuild(outputTimes: readonly (number | null)[], newestSource: number): boolean {
  return outputTimes.some((t) => t === null || t < newestSource);
}

function mtime(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function newestUnder(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestUnder(join(path, entry)));
  return newest;
}

/**
 * Runs `electron-vite build` when the face's outputs are missing or stale (or `force`); false
 * when it failed. The sources are walked: this runs when the app starts, not on every command.
 */
export function buildIfStale(face: 'desktop' | 'browser', env: NodeJS.ProcessEnv, force = false): boolean {
  return face === 'desktop' ? ensureBuilt(DESKTOP_OUTPUTS, DESKTOP_SOURCES, env, force) : ensureBuilt(BROWSER_OUTPUTS, BROWSER_SOURCES, env, force);
}

function ensureBuilt(outputs: readonly string[], sources: readonly string[], env: NodeJS.ProcessEnv, force: boolean): boolean {
  const newest = Math.max(...sources.map((s) => newestUnder(join(ROOT, s))));
  if (!force && !needsBuild(outputs.map((o) => mtime(join(ROOT, o))), newest)) return true;
  console.error('patchbay: building the app (electron-vite build)…');
  const bin = join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'electron-vite.cmd' : 'electron-vite');
  if (!existsSync(bin)) {
    console.error(`patchbay: cannot build: ${bin} is missing; run npm install first`);
    return false;
  }
  const result = spawnSync(bin, ['build'], { cwd: ROOT, env, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status === 0) return true;
  console.error(`patchbay: electron-vite build failed (${result.error?.message ?? `exit code ${result.status}`})`);
  return false;
}

function runElectron(binary: string, argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // Set by some tools; it would make the binary behave as plain node.
  const { ELECTRON_RUN_AS_NODE: _asNode, ...childEnv } = env;
  const child = spawn(binary, [ROOT, ...argv], { cwd: ROOT, env: childEnv, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`patchbay: could not start Electron (${binary}): ${err.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal === null ? 0 : 1));
    });
  });
}

const USAGE = `Usage: patchbay start [--headless]
Starts the desktop app (tray icon and windows) when Electron's binary is installed;
otherwise, or with --headless, the daemon, whose UI opens in a browser (patchbay open).`;

export async function runStart(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const headless = argv.includes('--headless');
  const electron = headless
    ? ({ found: false, reason: '--headless was given' } as const)
    : detectElectron(() => createRequire(import.meta.url)('electron'), existsSync);

  if (electron.found) {
    if (!buildIfStale('desktop', env)) return 1;
    console.error('patchbay: starting the desktop app');
    return runElectron(electron.binary, argv, env);
  }

  console.error(`patchbay: Electron's binary is not available (${electron.reason}), so Patchbay runs headless.`);
  if (!buildIfStale('browser', env)) {
    console.error('patchbay: continuing without the browser UI');
  }
  console.error('patchbay: open the UI in a browser with `npx patchbay open` (or `patchbay open --print` for the URL).');
  const { main } = await import('./main.ts');
  return main(['daemon']);
}

// resources/electron-builder.json (`npm run dist`), checked without building an installer:
// Electron's binary and electron-builder cannot be downloaded here. What can be checked is that
// the configuration packs what the build produces and what the app loads when packaged.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { DESKTOP_OUTPUTS, buildIfStale, detectElectron } from '../../src/cli/start.ts';
import { ELECTRON_BUILDER, electronDist } from '../../src/cli/dist.ts';
import { trayIconFile } from '../../electron/main/tray-service.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, any>;
const config = readJson('resources/electron-builder.json');
const pkg = readJson('package.json');

/** The pattern forms the configuration uses: a directory's whole tree (`dir/**`) or one file. */
function included(path: string, patterns: string[]): boolean {
  const matches = (pattern: string) => (pattern.endsWith('/**') ? path.startsWith(pattern.slice(0, -2)) : path === pattern);
  const positive = patterns.filter((p) => !p.startsWith('!'));
  for (const pattern of positive) assert.ok(pattern.endsWith('/**') || !pattern.includes('*'), `a pattern this test reads: ${pattern}`);
  return positive.some(matches);
}

function pngSize(path: string): { width: number; height: number } {
  const bytes = readFileSync(join(ROOT, path));
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', `${path} is a PNG`);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('the installers pack every file the desktop build produces and the package.json that names its entry', () => {
  assert.ok(buildIfStale('desktop', process.env), 'the app builds');
  const files = config.files as string[];
  for (const output of [...DESKTOP_OUTPUTS, pkg.main as string, 'package.json']) {
    assert.ok(existsSync(join(ROOT, output)), `the build produces ${output}`);
    assert.ok(included(output, files), `${output} is packed (files: ${files.join(', ')})`);
  }
  assert.equal(config.directories.output, 'dist', 'installers go where .gitignore expects them');
});

test('the installers pack the bundled CLI the desktop app runs its daemon with', () => {
  // electron/main/index.ts: a packaged app starts `<app>/out/cli/patchbay.mjs daemon` with its own binary as node.
  const entry = 'out/cli/patchbay.mjs';
  assert.ok(existsSync(join(ROOT, entry)), `the CLI build produces ${entry}`);
  assert.ok(included(entry, config.files as string[]), `${entry} is packed`);
});

test('the installers carry the icons and tray images the packaged app loads from its resources', () => {
  // electron/main/index.ts: a packaged app reads <resources>/icon.png and <resources>/tray/<name>.
  const extra = new Map((config.extraResources as { from: string; to: string }[]).map((r) => [r.to, r.from]));
  assert.equal(extra.get('icon.png'), 'resources/icon.png');
  const trayDir = extra.get('tray');
  assert.ok(trayDir !== undefined, 'the tray images are packed');
  const trayFiles = new Set(readdirSync(join(ROOT, trayDir)));
  for (const platform of ['darwin', 'linux'] as const) {
    for (const dark of [false, true]) {
      for (const pending of [false, true]) {
        const name = trayIconFile(platform, { dark, pending });
        assert.ok(trayFiles.has(name), `${trayDir}/${name}`);
        assert.ok(trayFiles.has(name.replace(/\.png$/, '@2x.png')), `${trayDir}/${name} at 2x`);
      }
    }
  }
  // electron-builder makes the .icns and the Linux icon set from one PNG of at least 512 px.
  for (const platform of ['linux', 'mac']) {
    const icon = config[platform].icon as string;
    const { width, height } = pngSize(icon);
    assert.ok(width >= 512 && width === height, `${platform} icon ${icon} is square and at least 512 px: ${width}×${height}`);
  }
});

test('dist builds an AppImage for Linux, a dmg for macOS and an NSIS installer for Windows, naming no placeholder homepage', () => {
  // electron-builder's deb needs a homepage and a maintainer: Patchbay has neither to name yet,
  // so it ships no deb rather than invented ones.
  assert.deepEqual(config.linux.target, ['AppImage']);
  assert.deepEqual(config.mac.target, ['dmg']);
  assert.deepEqual(config.win.target, ['nsis']);
  for (const text of [JSON.stringify(config), JSON.stringify(pkg)]) assert.doesNotMatch(text, /\.invalid\b|example\.(com|org)/, 'no placeholder address');
  assert.ok(pkg.description, 'a description');
  // Electron is an optional dependency, where electron-builder does not look for its version.
  assert.equal(config.electronVersion, pkg.optionalDependencies.electron);
  assert.equal(pkg.scripts.dist, 'node --import tsx src/cli/dist.ts');
});

test('dist packs the Electron binary npm install downloaded, found from the binary on each platform', () => {
  assert.equal(electronDist({ found: true, binary: '/p/node_modules/electron/dist/electron' }), '/p/node_modules/electron/dist');
  assert.equal(
    electronDist({ found: true, binary: '/p/node_modules/electron/dist/Electron.app/Contents/MacOS/Electron' }),
    '/p/node_modules/electron/dist',
  );
  assert.equal(electronDist({ found: false, reason: 'not installed' }), null);
  assert.match(ELECTRON_BUILDER, /^electron-builder@\d+\.\d+\.\d+$/, 'a pinned electron-builder');
});

test('without Electron\'s binary, npm run dist says why and how to get it, and builds nothing', (t) => {
  const status = detectElectron(() => createRequire(import.meta.url)('electron'), existsSync);
  if (status.found) return t.skip(`Electron's binary is installed here (${status.binary}): dist would really build`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/dist.ts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Electron's binary is not available \(.+\), so no installer can be built/);
  assert.match(run.stderr, /npm install without ELECTRON_SKIP_BINARY_DOWNLOAD/);
  assert.equal(existsSync(join(ROOT, 'dist')), false, 'no partial output');
});

test('every package the packaged main process imports is a production dependency (the only ones packed)', async () => {
  assert.ok(buildIfStale('desktop', process.env), 'the app builds');
  const imported = new Set<string>();
  await build({
    entryPoints: [join(ROOT, pkg.main as string)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    plugins: [
      {
        name: 'record-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            imported.add(args.path);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  const packages = [...imported].filter((s) => !s.startsWith('node:') && !builtinModules.includes(s)).map(packageOf);
  assert.ok(packages.includes('electron'), `the main process imports electron: ${packages.join(', ')}`);
  for (const name of packages) {
    if (name === 'electron') continue; // the runtime itself
    assert.ok(Object.hasOwn(pkg.dependencies, name), `out/main imports ${name}, which is not in "dependencies"`);
  }
});

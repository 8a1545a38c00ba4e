// package-lock.json must let `npm ci` install on every platform the desktop app targets. npm
// refuses a lock that misses any optional package a locked package declares (whatever the
// platform it is for), and a lock written where node_modules already existed can miss them
// (npm/cli#4828): checked here offline, on every test run, rather than found by a Mac user.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

interface LockEntry {
  os?: string[];
  cpu?: string[];
  optionalDependencies?: Record<string, string>;
}
type Packages = Record<string, LockEntry>;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const lock = JSON.parse(readFileSync(`${ROOT}package-lock.json`, 'utf8')) as { lockfileVersion: number; packages: Packages };

/** The platforms the desktop installers are built for (resources/electron-builder.json). */
const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];

/** Where node would find `name` from the package at `from` (its own node_modules, then each parent's). */
function resolve(packages: Packages, from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (dir === '') return null;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at);
  }
}

/** npm's `os`/`cpu` fields accept the value (`!name` excludes; only exclusions allow the rest). */
function allows(list: string[] | undefined, value: string): boolean {
  if (list === undefined) return true;
  if (list.includes(`!${value}`)) return false;
  return list.some((v) => !v.startsWith('!')) ? list.includes(value) : true;
}

/** Optional packages declared by a locked package but not locked themselves: `npm ci` refuses the lock. */
function missingOptional(packages: Packages): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (resolve(packages, path, name) === null) missing.push(`${name} (declared by ${path || 'package.json'})`);
    }
  }
  return missing;
}

/**
 * Packages that ship one native build per platform (two or more platform-bound optional
 * packages; a lone fsevents is macOS-only by design), with the targets none of them serves.
 */
function uncoveredTargets(packages: Packages): { families: number; gaps: string[] } {
  let families = 0;
  const gaps: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    const builds = Object.keys(entry.optionalDependencies ?? {})
      .map((name) => resolve(packages, path, name))
      .flatMap((p) => (p === null ? [] : [packages[p]!]))
      .filter((b) => b.os !== undefined || b.cpu !== undefined);
    if (builds.length < 2) continue;
    families++;
    for (const target of TARGETS) {
      const [os, cpu] = target.split('-') as [string, string];
      if (!builds.some((b) => allows(b.os, os) && allows(b.cpu, cpu))) gaps.push(`${path}: ${target}`);
    }
  }
  return { families, gaps };
}

test('the lockfile is npm 3 format, which npm ci reads the same everywhere', () => {
  assert.equal(lock.lockfileVersion, 3);
});

test('every optional package a locked package declares is in the lockfile, for every platform (npm ci needs them all)', () => {
  assert.deepEqual(missingOptional(lock.packages), [], 'regenerate the lock: npm install --package-lock-only (npm 11 records every platform)');
});

test('each package with native builds per platform has one locked for every platform the installers target', () => {
  const { families, gaps } = uncoveredTargets(lock.packages);
  assert.deepEqual(gaps, []);
  // esbuild, rollup and rolldown (through vite) ship their binaries this way.
  assert.ok(families >= 3, `packages with per-platform builds: ${families}`);
});

test("a lock written on one platform (another platform's build left out) fails both checks", () => {
  const gone = Object.keys(lock.packages).find((p) => p.endsWith('/@esbuild/win32-x64'));
  assert.ok(gone, "esbuild's win32-x64 build is locked");
  const { [gone]: _removed, ...oneSided } = lock.packages;
  assert.equal(missingOptional(oneSided).length, 1);
  assert.deepEqual(uncoveredTargets(oneSided).gaps, ['node_modules/esbuild: win32-x64']);
});

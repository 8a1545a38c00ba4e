// Runs every test file under test/ (Node 20's test runner does not expand globs).
// Usage: node test/run.mjs [substring…] — only files whose path contains one of them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleReason } from '../src/cli/fresh.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2);

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.name.endsWith('.test.ts')) yield relative(root, path);
  }
}

const files = [...walk(join(root, 'test'))]
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
// Tests run the real `patchbay` (src/cli/bin.mjs), which rebuilds its bundle first when a
// source changed: so they always run the current sources. That rebuild happens once here, not
// in several test processes at once. Browser and Electron tests load the built UI: it is built
// here too when stale, rather than in two test files at once (one would empty out/ under the
// other's page).
const needsUi = files.some((f) => f.startsWith(join('test', 'ui')) || f.startsWith(join('test', 'electron')));
if (needsUi || staleReason(root) !== null) {
  const build = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/build.ts', ...(needsUi ? [] : ['--cli'])], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);

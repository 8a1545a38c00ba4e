// Runs every test file under test/ (Node 20's test runner does not expand globs).
// Usage: node test/run.mjs [substring…] — only files whose path contains one of them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

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
// Browser tests load the built renderer: build it once here if it is stale, rather than
// in two test files at once (one would empty out/ under the other's page).
if (files.some((f) => f.startsWith(join('test', 'ui')))) {
  const build = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-e', "const { buildIfStale } = await import('./src/cli/start.ts'); process.exit(buildIfStale('browser', process.env) ? 0 : 1)"],
    { cwd: root, stdio: 'inherit' },
  );
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);

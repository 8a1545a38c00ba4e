#!/usr/bin/env node
// The `patchbay` command. It runs out/cli/main.mjs, the CLI bundled ahead of time (by npm
// install's prepare, `npm run build` or `npm start`): it starts about as fast as node itself,
// where the TypeScript through tsx takes several times longer. fresh.mjs tells whether the
// bundle is current by a stat per bundled source; when one changed, the bundle is rebuilt
// first (esbuild, well under a second), so no one runs a bundle older than src/.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLI_ENTRY, staleReason } from './fresh.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** esbuild is a dev dependency: a checkout has it, an install without dev dependencies may not. */
function canBuild() {
  try {
    import.meta.resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

/** Rebuilds in a child process, so this one stays free of the TypeScript loader (a daemon is lighter without it). */
async function rebuild(why) {
  if (process.stderr.isTTY) process.stderr.write(`patchbay: rebuilding the CLI (${why})…\n`);
  const { spawnSync } = await import('node:child_process');
  const build = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), join(root, 'src/cli/build.ts'), '--cli'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Quiet when it worked: scripts read this command's output.
  if (build.status !== 0) process.stderr.write(build.stderr);
  return build.status === 0;
}

let main;
const stale = staleReason(root);
if (stale === null || (canBuild() && (await rebuild(stale)))) {
  ({ main } = await import(pathToFileURL(join(root, CLI_ENTRY)).href));
} else {
  process.stderr.write(
    `patchbay: the bundled CLI is out of date (${stale}) and could not be rebuilt; running the TypeScript sources (slower). Rebuild with: npm run build\n`,
  );
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('./main.ts'));
}
process.exitCode = await main(process.argv.slice(2));

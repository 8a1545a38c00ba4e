#!/usr/bin/env node
// The `patchbay` command. `npm run build` bundles the core into out/cli/main.mjs (lighter:
// no TypeScript loader in a long-running daemon); when that is missing or older than the
// sources, the TypeScript runs directly through tsx.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bundle = join(root, 'out', 'cli', 'main.mjs');

function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function freshBundle() {
  try {
    return statSync(bundle).mtimeMs >= newestUnder(join(root, 'src'));
  } catch {
    return false;
  }
}

let main;
if (freshBundle()) {
  ({ main } = await import(bundle));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('./main.ts'));
}
process.exitCode = await main(process.argv.slice(2));

// Is the bundled CLI in out/cli current? Plain JavaScript: `patchbay` (bin.mjs) asks on every
// call, before anything is built or any loader runs. The build lists each file it bundled with
// the size and mtime it read; answering costs one stat per listed file and no directory walk.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Relative to the project root. */
export const CLI_OUT_DIR = 'out/cli';
export const CLI_ENTRY = 'out/cli/main.mjs';

/**
 * null when the bundle in `outDir` was built from the files as they are now; otherwise why
 * not, in a few words that name the file (`src/cli/pi.ts changed`).
 * @param {string} root the project directory
 * @param {string} [outDir] where the bundle is, relative to root
 * @returns {string | null}
 */
export function staleReason(root, outDir = CLI_OUT_DIR) {
  const manifestPath = join(outDir, 'manifest.json');
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(join(root, manifestPath), 'utf8')).inputs;
  } catch (err) {
    return err.code === 'ENOENT' ? 'it was never built' : `${manifestPath} is unreadable (${err.message})`;
  }
  if (typeof inputs !== 'object' || inputs === null) return `${manifestPath} lists no inputs`;
  for (const [path, recorded] of Object.entries(inputs)) {
    const stat = statSync(join(root, path), { throwIfNoEntry: false });
    if (stat === undefined) return `${path} is gone`;
    if (!Array.isArray(recorded) || stat.size !== recorded[0] || stat.mtimeMs !== recorded[1]) return `${path} changed`;
  }
  return null;
}

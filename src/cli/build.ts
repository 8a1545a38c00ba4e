// Builds what is missing or out of date. npm install (prepare), `npm run build`, the test runner
// and `patchbay` itself (when a source changed since its bundle was built) run it:
//   node --import tsx src/cli/build.ts [--cli] [--force]
//     --cli    only the CLI bundle (what `patchbay` runs); without it, the UI too
//     --force  build even what is current
// The CLI: esbuild bundles src/cli/main.ts, every package it uses included, into out/cli/, split
// at each dynamic import so a command loads only its own code. Packages too: loaded from
// node_modules, their whole sources (zod's, conf's) stay in the daemon's heap as strings, ~2 MB
// more, and a client command starts slower. out/cli/manifest.json lists every source it read
// with that file's size and mtime, which is how fresh.mjs tells at a glance that the bundle is
// current. The UI: electron-vite, when start.ts finds its outputs stale.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Plugin } from 'esbuild';
import { CLI_OUT_DIR, staleReason } from './fresh.mjs';
import { buildIfStale } from './start.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI_SOURCE = 'src/cli/main.ts';
/** npm rewrites it whenever node_modules changes: one stat stands for every bundled package. */
const PACKAGES_MARKER = 'node_modules/.package-lock.json';
/** Old chunks may still be loading in a `patchbay` started just before; they go once this old. */
const OLD_OUTPUT_GRACE_MS = 60_000;
/** Bundled CommonJS packages (ws, ajv) call require(); an ES module has none of its own. */
const REQUIRE_SHIM = "import { createRequire as __patchbayRequire } from 'node:module'; const require = __patchbayRequire(import.meta.url);";

type Stamp = [size: number, mtimeMs: number];

function stamp(path: string): Stamp {
  const stat = statSync(path);
  return [stat.size, stat.mtimeMs];
}

const projectPath = (root: string, path: string): string => relative(root, path).split(sep).join('/');

/** Each source's size and mtime, taken just before esbuild reads it: a later edit shows as a change. */
function recordInputs(root: string, stamps: Map<string, Stamp>): Plugin {
  return {
    name: 'patchbay:record-inputs',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
        if (!args.path.split(sep).includes('node_modules')) stamps.set(projectPath(root, args.path), stamp(args.path));
        return undefined; // esbuild reads the file itself
      });
    },
  };
}

/** Written beside and renamed into place: a `patchbay` starting meanwhile reads old or new, never half. */
function writeAtomically(path: string, contents: Uint8Array): void {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, path);
}

/** Bundles the CLI into `outDir` (relative to root) and writes its manifest. */
export async function buildCli(root = ROOT, outDir = CLI_OUT_DIR): Promise<void> {
  const { build } = await import('esbuild');
  const absOut = join(root, outDir);
  const inputs: Record<string, Stamp> = {};
  // Taken first: what changes during the build must count as changed afterwards.
  inputs['src/cli/build.ts'] = stamp(join(root, 'src/cli/build.ts'));
  const packagesMarker = existsSync(join(root, PACKAGES_MARKER)) ? PACKAGES_MARKER : null;
  if (packagesMarker) inputs[packagesMarker] = stamp(join(root, packagesMarker));
  const stamps = new Map<string, Stamp>();
  const result = await build({
    absWorkingDir: root,
    // `patchbay` itself too: the desktop app's daemon runs it (bin.mjs runs main.mjs).
    entryPoints: { main: CLI_SOURCE, patchbay: 'src/cli/entry.ts' },
    outdir: absOut,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    // Flat beside main.mjs: modules that find files from import.meta.url (out/renderer) sit two levels down, as in src/.
    chunkNames: '[name]-[hash]',
    banner: { js: REQUIRE_SHIM },
    plugins: [recordInputs(root, stamps)],
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  for (const path of Object.keys(result.metafile.inputs)) {
    if (path.startsWith('node_modules/') && packagesMarker) continue;
    inputs[path] = stamps.get(path) ?? stamp(join(root, path));
  }
  mkdirSync(absOut, { recursive: true });
  // Chunks before the entry that names them; the manifest last, once all is in place.
  const written = new Set(result.outputFiles.map((file) => basename(file.path)));
  const entry = join(absOut, 'main.mjs');
  for (const file of result.outputFiles) if (file.path !== entry) writeAtomically(file.path, file.contents);
  writeAtomically(entry, result.outputFiles.find((file) => file.path === entry)!.contents);
  writeAtomically(join(absOut, 'manifest.json'), Buffer.from(`${JSON.stringify({ entry: CLI_SOURCE, inputs })}\n`));
  for (const name of readdirSync(absOut)) {
    const path = join(absOut, name);
    const output = name.endsWith('.mjs') || name.endsWith('.tmp');
    if (output && !written.has(name) && Date.now() - statSync(path).mtimeMs > OLD_OUTPUT_GRACE_MS) rmSync(path, { force: true });
  }
}

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { cli: { type: 'boolean' }, force: { type: 'boolean' } }, strict: true });
  const stale = values.force ? 'a build was asked for' : staleReason(ROOT);
  if (stale !== null) {
    const started = performance.now();
    await buildCli();
    console.error(`patchbay: built the CLI into ${CLI_OUT_DIR}/ in ${Math.round(performance.now() - started)} ms (${stale})`);
  }
  if (values.cli) return 0;
  return buildIfStale('desktop', process.env, values.force === true) ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  run(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (err: Error) => {
      console.error(`patchbay: the build failed: ${err.message}`);
      process.exitCode = 1;
    },
  );
}

// `patchbay` as a bundled entry (out/cli/patchbay.mjs): what the desktop app runs its daemon with
// (its Electron binary as node), with no TypeScript loader and no check of the sources (bin.mjs
// does that for a checkout).
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
// The `patchbay` command. The core is TypeScript run through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));

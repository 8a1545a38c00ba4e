/**
 * The hub (src/hub.ts) alone in a child process, for profiling one benchmark phase at a time:
 * the same relay the daemon runs, without its control server, plus profile commands.
 * Paths come from the environment as for the daemon (PATCHBAY_HOME, PI_IDE_LOCK_DIR, …).
 *
 * CLI: node --import tsx test/bench/hub-child.ts
 * stdout: {"ready":true,"pid":N,"doorPort":N}; stdin: profileStart, profileStop (profiler.ts),
 * heapSnapshot {path}, memoryUsage, snapshot, bind {sessionId, editorId}, stop.
 */
import { createHub } from '../../src/hub.ts';
import { resolveOptions } from '../../src/options.ts';
import { emit, field, isMain, serveCommands, startupFailed } from '../peers/cli.ts';
import { profilerCommands } from './profiler.ts';

async function main(): Promise<void> {
  const hub = await createHub(resolveOptions(process.env), { log: (m) => process.stderr.write(`hub: ${m}\n`) });
  emit({ ready: true, pid: process.pid, doorPort: hub.doorPort });
  serveCommands(
    {
      ...profilerCommands(),
      memoryUsage: () => process.memoryUsage(),
      snapshot: () => hub.call('snapshot', undefined),
      bind: (c) => hub.call('bind', { sessionId: field(c, 'sessionId'), editorId: typeof c.editorId === 'string' ? c.editorId : null }),
    },
    () => hub.close('benchmark finished'),
  );
}

if (isMain(import.meta.url)) main().catch(startupFailed);

// `patchbay restore`: give editors their lockfiles back, through the daemon when it runs and
// straight on disk when it does not (after a crash, say).
import type { Dialect, RestoreReport } from '../api/types.ts';
import type { HubOptions } from '../options.ts';
import { parse, positionals, printJson, type Command } from './command.ts';
import { formatRestore } from './format.ts';

export async function restoreOnDisk(options: HubOptions): Promise<RestoreReport> {
  // Loaded here, not by every `patchbay` call: takeover brings the lockfile schemas.
  const [{ pidAlive }, { removeDeadDoors, restoreAdopted }] = await Promise.all([
    import('../discovery/liveness.ts'),
    import('../discovery/takeover.ts'),
  ]);
  const report: Required<RestoreReport> = { restored: [], removed: [], warnings: [] };
  const dirs: [string, Dialect][] = [
    [options.piLockDir, 'pi'],
    [options.claudeLockDir, 'claude'],
  ];
  for (const [dir, dialect] of dirs) {
    const moved = await restoreAdopted(dir, dialect, pidAlive);
    report.restored.push(...moved.restored);
    report.removed.push(...moved.removed, ...(await removeDeadDoors(dir, dialect, pidAlive)));
    report.warnings.push(...moved.warnings);
  }
  return report.warnings.length > 0 ? report : { restored: report.restored, removed: report.removed };
}

export const restore: Command = {
  summary: 'Put the editors’ adopted lockfiles back where agents find them',
  usage: `Usage: patchbay restore [--json]
Through the running daemon if there is one; otherwise directly in the lock dirs.`,
  async run(args, ctx) {
    const { values, positionals: given } = parse(args, { json: { type: 'boolean' } });
    positionals(given, []);
    let report: RestoreReport;
    try {
      report = await (await ctx.connect()).call('restore', undefined);
    } catch (err) {
      // connect() has loaded the client module by now.
      const { NotRunningError } = await import('../web/control-client.ts');
      if (!(err instanceof NotRunningError)) throw err;
      report = await restoreOnDisk(ctx.options);
    }
    if (values.json) printJson(ctx.io, report);
    else ctx.io.stdout.write(formatRestore(report));
    return 0;
  },
};

// A hub in a temp folder with its control server, as a daemon runs them, for tests that drive
// it through the CLI too. Both stop (and the folder goes) when the test ends, in that order.
import type { TestContext } from 'node:test';
import { createHub, type Hub } from '../../src/hub.ts';
import type { HubOptions } from '../../src/options.ts';
import { startControlServer, type ControlServer } from '../../src/web/control-server.ts';
import { isolatedOptions } from './hub-options.ts';
import { tempDir, type TempDir } from './wait.ts';

export async function controlledHub(
  t: TestContext,
  prefix: string,
  overrides: Partial<HubOptions> = {},
  /** Runs before the hub starts (the folders are known, nothing is created yet). */
  prepare: (options: HubOptions) => Promise<void> = async () => {},
): Promise<{ dir: TempDir; options: HubOptions; hub: Hub }> {
  const dir = await tempDir(prefix);
  let hub: Hub | undefined;
  let server: ControlServer | undefined;
  t.after(async () => {
    await server?.close();
    await hub?.close('test over');
    await dir.cleanup();
  });
  const options = isolatedOptions(dir.path, overrides);
  await prepare(options);
  hub = await createHub(options);
  server = await startControlServer({ hub, host: '127.0.0.1', port: 0, home: options.home, version: 'test', staticDir: dir.path, log: () => {} });
  return { dir, options, hub };
}

// Where `patchbay` finds a daemon in the CLI tests: a real control server over the in-memory hub,
// in a temp home that goes with the test.
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { startControlServer } from '../../src/web/control-server.ts';
import { createFakeHub } from '../web/fake-hub.ts';
import { tempDir } from '../peers/wait.ts';

export async function startFakeDaemon(t: TestContext, prefix: string) {
  const dir = await tempDir(prefix);
  const home = join(dir.path, 'home');
  const hub = createFakeHub();
  const server = await startControlServer({ hub, host: '127.0.0.1', port: 0, home, staticDir: dir.path, version: 'test', log: () => {} });
  t.after(async () => {
    await server.close();
    await dir.cleanup();
  });
  return { dir: dir.path, home, hub, server };
}

// A core (`patchbay __core`) over the in-memory hub, for the daemon tests: the keeper starts it
// as it starts the real one. What happens to the hub is said on stderr, which the daemon passes on.
import { runCore } from '../../src/core/main.ts';
import { resolveOptions } from '../../src/options.ts';
import { createFakeHub } from '../web/fake-hub.ts';

const hub = createFakeHub();
process.exitCode = await runCore(resolveOptions(process.env), {
  createHub: async () => ({
    ...hub,
    close: async (reason?: string) => void process.stderr.write(`fake hub closed: ${reason}\n`),
    handOver: async () => ({ heads: [], broken: [] }),
  }),
});

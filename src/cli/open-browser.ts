// Hands a URL to the person's browser and returns without waiting for it.
import { spawn } from 'node:child_process';
import { platform } from 'node:os';

/** `$BROWSER` (one executable) wins; otherwise the platform's opener. */
export function openerFor(url: string, env: NodeJS.ProcessEnv, os: NodeJS.Platform = platform()): [string, string[]] {
  if (env.BROWSER) return [env.BROWSER, [url]];
  if (os === 'darwin') return ['open', [url]];
  // rundll32 takes the URL as one argument; `cmd /c start` would re-parse it as shell text.
  if (os === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  return ['xdg-open', [url]];
}

export function openInBrowser(url: string, env: NodeJS.ProcessEnv): Promise<void> {
  const [command, args] = openerFor(url, env);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
    child.once('error', (err) => reject(new Error(`could not start ${command} (${err.message}); open this link yourself: ${url}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

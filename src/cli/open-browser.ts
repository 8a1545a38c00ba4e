// Hands a URL to the person's browser, and says when that did not work so the caller can
// print the link instead.
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

/**
 * Openers (xdg-open, open) hand over and exit at once; a browser named by $BROWSER may keep
 * running. One still running after this long is taken to have opened the page.
 */
const SETTLE_MS = 3000;

/** Resolves with null once the page is (taken to be) open, or with why it is not. */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv, settleMs = SETTLE_MS): Promise<string | null> {
  const [command, args] = openerFor(url, env);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
    const timer = setTimeout(() => {
      child.removeAllListeners();
      child.unref();
      resolve(null);
    }, settleMs);
    const settle = (why: string | null) => {
      clearTimeout(timer);
      child.removeAllListeners();
      resolve(why);
    };
    child.once('error', (err) => settle(`could not start ${command} (${err.message})`));
    child.once('exit', (code, signal) => {
      if (code === 0) settle(null);
      else settle(`${command} ${signal !== null ? `was killed by ${signal}` : `exited with code ${code}`}`);
    });
  });
}

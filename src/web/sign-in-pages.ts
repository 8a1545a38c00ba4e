// The pages `patchbay open` hands the browser: `<home>/sign-in/<random>.html`, 0600 in a 0700
// folder, each forwarding to a one-time sign-in link. The browser's command line then names
// only a file no other user can read (Jupyter does the same), never the link's secret. A page
// goes once its secret is used or has expired, and all of them when the server stops.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writePrivateFile } from '../fs/private-file.ts';
import { page } from './pages.ts';
import { HOME_FILES } from '../fs/home-files.ts';

export function signInPagesDir(home: string): string {
  return join(home, HOME_FILES.signIn);
}

const PAGE_NAME = /^[0-9a-f]{32}\.html$/;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The page: a refresh to `link` at once (no script needed), and the link to click if that is blocked. */
export function signInPage(link: string): string {
  const href = escapeHtml(link);
  return page(
    'Opening Patchbay…',
    `<p>If nothing happens, <a href="${href}">continue to Patchbay</a>.</p>
<p>This page signs your browser in once, within two minutes; Patchbay deletes it then.</p>`,
    `\n<meta name="referrer" content="no-referrer">\n<meta http-equiv="refresh" content="0;url=${href}">`,
  );
}

export class SignInPages {
  readonly dir: string;
  /** Each page's secret → its file and the timer that removes it when the secret expires. */
  private readonly pages = new Map<string, { path: string; timer: NodeJS.Timeout }>();

  constructor(
    home: string,
    private readonly ttlMs: number,
  ) {
    this.dir = signInPagesDir(home);
  }

  /** Removes pages a previous run left (their secrets died with it). */
  async clearLeftovers(): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => PAGE_NAME.test(n)).map((n) => rm(join(this.dir, n), { force: true })));
  }

  /** Writes a page that forwards to `link`, whose one-time secret is `secret`; resolves with its path. */
  async write(link: string, secret: string): Promise<string> {
    const path = join(this.dir, `${randomBytes(16).toString('hex')}.html`);
    await writePrivateFile(path, signInPage(link));
    const timer = setTimeout(() => void this.used(secret), this.ttlMs);
    timer.unref();
    this.pages.set(secret, { path, timer });
    return path;
  }

  /** The page of a secret just used (or expired) goes. */
  async used(secret: string): Promise<void> {
    const page = this.pages.get(secret);
    if (page === undefined) return;
    this.pages.delete(secret);
    clearTimeout(page.timer);
    await rm(page.path, { force: true });
  }

  async close(): Promise<void> {
    await Promise.all([...this.pages.keys()].map((secret) => this.used(secret)));
  }
}

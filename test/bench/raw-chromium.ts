// Chromium driven over the bare DevTools protocol (a pipe, no port), for the UI benchmark: only
// the domains a measurement enables send anything. Playwright enables the Network domain on every
// page it drives, and Chromium then copies each WebSocket frame's payload to the driver: a 4.4 MB
// diff cost ~280 ms of Chromium's browser thread and ~250 ms of the driver's on these 2 cores,
// which a person's browser never pays and which landed in the very views being timed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { waitFor } from '../peers/wait.ts';

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

export class RawChromium {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffered = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const out = child.stdio[4] as Readable;
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => {
      this.buffered += chunk;
      let end: number;
      while ((end = this.buffered.indexOf('\0')) >= 0) {
        const message = JSON.parse(this.buffered.slice(0, end)) as { id?: number; result?: unknown; error?: { message: string } };
        this.buffered = this.buffered.slice(end + 1);
        const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
        if (!waiter) continue; // an event: none is listened to
        this.pending.delete(message.id!);
        if (message.error) waiter.reject(new Error(message.error.message));
        else waiter.resolve(message.result);
      }
    });
    child.once('exit', () => {
      for (const waiter of this.pending.values()) waiter.reject(new Error('Chromium exited'));
      this.pending.clear();
    });
  }

  static async launch(executable: string, args: readonly string[]): Promise<RawChromium> {
    const profile = await mkdtemp(join(tmpdir(), 'patchbay-bench-chromium-'));
    const child = spawn(executable, [...args, '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    const browser = new RawChromium(child, profile);
    await browser.send('Browser.getVersion');
    return browser;
  }

  /** One command, to the browser or (with a session) to a page. */
  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = this.nextId++;
    const input = this.child.stdio[3] as Writable;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  /** A new tab of width × height, attached: nothing enabled in it yet. */
  async newPage(width: number, height: number): Promise<RawPage> {
    const { targetId } = await this.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    const page = new RawPage(this, targetId, sessionId);
    await page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    return page;
  }

  async close(): Promise<void> {
    await this.send('Browser.close').catch(() => {});
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve));
    await rm(this.profile, { recursive: true, force: true });
  }
}

export class RawPage {
  constructor(
    private readonly browser: RawChromium,
    readonly targetId: string,
    readonly sessionId: string,
  ) {}

  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    return this.browser.send<T>(method, params, this.sessionId);
  }

  /** Starts the navigation and resolves once the new document is the page's (its scripts may still be loading). */
  async goto(url: string): Promise<void> {
    const { errorText } = await this.send<{ errorText?: string }>('Page.navigate', { url });
    if (errorText) throw new Error(`navigation to ${url}: ${errorText}`);
    // Asked until the new document answers (an evaluation the old one gets as it goes may fail).
    const committed = `location.href === ${JSON.stringify(url)}`;
    await waitFor(() => this.evaluate<boolean>(committed), { timeoutMs: 10_000, intervalMs: 2, message: `navigation to ${url} committed` });
  }

  /** An expression's value (a promise's, awaited), as JSON. */
  async evaluate<T>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send<{ result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }>('Runtime.evaluate', {
      expression,
      awaitPromise: true,
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  }

  close(): Promise<unknown> {
    return this.browser.send('Target.closeTarget', { targetId: this.targetId });
  }
}

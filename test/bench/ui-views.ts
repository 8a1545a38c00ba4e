// How long the review makes a person wait, in Debian's Chromium against the real daemon's UI
// (issue 29): the first diff on a cold page (a new tab, nothing cached), a 2 MiB diff opened from
// the list, and a 2 MiB decided diff opened from the history. Each is timed in the page itself,
// from the navigation (cold) or the click to the diff editor showing the diff's lines, the
// median of several tries; the page's own CPU for each (Chromium's TaskDuration) goes beside it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { buildIfStale } from '../../src/cli/start.ts';
import { connectControl, requestOpenUrl } from '../../src/web/control-client.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../ui/chromium.ts';
import { waitFor } from '../peers/wait.ts';
import { BenchAgent } from './agent.ts';
import { PatchbayDaemon } from './daemon.ts';
import { median } from './report.ts';
import type { Measurement } from './report.ts';
import { sourceText } from './source-text.ts';

const MiB = 1024 * 1024;

export interface UiPlan {
  /** Tries of each view. */
  tries: number;
  bigBytes: number;
}

export const UI_PLAN: UiPlan = { tries: 7, bigBytes: 2 * MiB };

/** A proposal that changes every 400th line of `text` (scattered edits, as agents make them). */
function scattered(text: string): string {
  return text
    .split('\n')
    .map((line, i) => (i % 400 === 7 ? `${line} // edited` : line))
    .join('\n');
}

const SMALL_DISK = `${Array.from({ length: 120 }, (_, i) => `export const value${i} = compute(${i}); // line ${i}`).join('\n')}\n`;

/**
 * In the page: runs `start` (a statement, or nothing to time from the navigation), then resolves
 * with the ms until the review's diff editor shows lines of the file named `file` (its title), and
 * the page's CPU meanwhile is read outside. A plain script string: nothing of this file's build.
 */
function timedView(file: string, start: string): string {
  return `(async () => {
    const t0 = ${start === '' ? '0' : 'performance.now()'};
    ${start}
    const shown = () => {
      const title = document.getElementById('diff-title');
      return title !== null && title.textContent.trim().endsWith(${JSON.stringify(file)}) && document.querySelector('.merge-editor .cm-content .cm-line') !== null;
    };
    await new Promise((resolve) => {
      if (shown()) return resolve();
      const observer = new MutationObserver(() => { if (shown()) { observer.disconnect(); resolve(); } });
      observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    return performance.now() - t0;
  })()`;
}

/** The page's main thread's CPU so far, in seconds (its tasks timed in thread ticks, not wall time: the machine may be busy). */
async function taskSeconds(cdp: CDPSession): Promise<number> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  return metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
}

/** A page of `context` with the HTTP cache off (every load is cold) and CPU metrics on. */
async function coldPage(context: BrowserContext): Promise<{ page: Page; cdp: CDPSession }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  return { page, cdp };
}

/** `tries` of one view: wall ms (in the page) and the page's CPU ms. */
async function timeTries(tries: number, once: (i: number) => Promise<{ ms: number; cpuMs: number }>): Promise<{ ms: number[]; cpuMs: number[] }> {
  const ms: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < tries; i++) {
    const t = await once(i);
    ms.push(t.ms);
    cpuMs.push(t.cpuMs);
  }
  return { ms, cpuMs };
}

const spread = (xs: readonly number[]): string => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))} ms`;

/**
 * Runs `once` with the page's JS profiled into `dir`/ui-`name`.cpuprofile when a dir is given
 * (the last try of each view: warm in every sense the others are).
 */
async function profiledTry<T>(cdp: CDPSession, dir: string | undefined, name: string, once: () => Promise<T>): Promise<T> {
  if (dir === undefined) return once();
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  try {
    return await once();
  } finally {
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: unknown };
    await writeFile(join(dir, `ui-${name}.cpuprofile`), JSON.stringify(profile));
  }
}

export async function measureUiViews(root: string, progress: (message: string) => void, plan: UiPlan = UI_PLAN, profileDir?: string): Promise<Measurement[]> {
  if (!buildIfStale('browser', process.env)) throw new Error('the renderer did not build');
  const daemon = await PatchbayDaemon.start(root);
  const agent = await BenchAgent.connect(`ws://127.0.0.1:${daemon.door.port}`, daemon.door.token);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const hub = await connectControl(daemon.dirs.home);
  try {
    const project = join(root, 'ui-project');
    await mkdir(project, { recursive: true });
    const small = join(project, 'values.ts');
    const big = join(project, 'big.ts');
    const decided = join(project, 'decided.ts');
    const bigDisk = sourceText(plan.bigBytes, 'original');
    await writeFile(small, SMALL_DISK);
    await writeFile(big, bigDisk);
    await writeFile(decided, bigDisk);
    const propose = (path: string, contents: string, tab: string): void =>
      void agent.call('tools/call', { name: 'openDiff', arguments: { old_file_path: path, new_file_path: path, new_file_contents: contents, tab_name: tab } });
    propose(decided, scattered(bigDisk), 'pi-edit:decided');
    const decidedId = (await waitFor(async () => (await hub.call('snapshot', undefined)).diffs.find((d) => d.path === decided), { timeoutMs: 20_000 })).id;
    await hub.call('diffs.accept', { id: decidedId });
    propose(small, SMALL_DISK.replace('value7 = compute(7)', 'value7 = compute(7) * 2'), 'pi-edit:small');
    propose(big, scattered(bigDisk), 'pi-edit:big');
    const listed = await waitFor(
      async () => {
        const diffs = (await hub.call('snapshot', undefined)).diffs;
        const s = diffs.find((d) => d.path === small);
        const b = diffs.find((d) => d.path === big);
        return s && b && { small: s.id, big: b.id };
      },
      { timeoutMs: 20_000 },
    );
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const signIn = await context.newPage();
    await signIn.goto(await requestOpenUrl(daemon.dirs.home));
    await signIn.getByRole('heading', { name: /Review inbox/ }).waitFor({ timeout: 20_000 });
    const origin = new URL(signIn.url()).origin;
    await signIn.close();

    progress('UI: the first diff on a cold page');
    const cold = await timeTries(plan.tries, async (i) => {
      const { page, cdp } = await coldPage(context);
      try {
        return await profiledTry(cdp, i === plan.tries - 1 ? profileDir : undefined, 'cold', async () => {
          const before = await taskSeconds(cdp);
          await page.goto(`${origin}/#/review/${listed.small}`, { waitUntil: 'commit' });
          const ms = (await page.evaluate(timedView('values.ts', ''))) as number;
          return { ms, cpuMs: ((await taskSeconds(cdp)) - before) * 1000 };
        });
      } finally {
        await page.close();
      }
    });

    const { page, cdp } = await coldPage(context);
    await page.goto(`${origin}/#/review/${listed.small}`);
    await page.evaluate(timedView('values.ts', ''));
    const clickFile = (name: string): string =>
      `[...document.querySelectorAll('.diff-item, .history-item')].find((b) => b.textContent.includes(${JSON.stringify(name)})).click();`;
    const back = async (): Promise<void> => {
      await page.goto(`${origin}/#/review/${listed.small}`);
      await page.evaluate(timedView('values.ts', ''));
    };

    progress(`UI: a ${plan.bigBytes / MiB} MiB diff opened from the list`);
    const bigTimes = await timeTries(plan.tries, async (i) => {
      await back();
      return profiledTry(cdp, i === plan.tries - 1 ? profileDir : undefined, 'big', async () => {
        const before = await taskSeconds(cdp);
        const ms = (await page.evaluate(timedView('big.ts', clickFile('big.ts')))) as number;
        return { ms, cpuMs: ((await taskSeconds(cdp)) - before) * 1000 };
      });
    });

    progress(`UI: a ${plan.bigBytes / MiB} MiB decided diff opened from the history`);
    const historyTimes = await timeTries(plan.tries, async (i) => {
      await back();
      await page.evaluate("document.querySelector('details.history').open = true");
      return profiledTry(cdp, i === plan.tries - 1 ? profileDir : undefined, 'history', async () => {
        const before = await taskSeconds(cdp);
        const ms = (await page.evaluate(timedView('decided.ts', clickFile('decided.ts')))) as number;
        return { ms, cpuMs: ((await taskSeconds(cdp)) - before) * 1000 };
      });
    });

    const row = (metric: string, times: { ms: number[]; cpuMs: number[] }, max: number, what: string): Measurement => ({
      metric,
      unit: 'ms',
      bare: null,
      patchbay: median(times.ms),
      target: { kind: 'value-max', max },
      note: `median of ${times.ms.length} (${spread(times.ms)}); the page's main-thread CPU ${Math.round(median(times.cpuMs))} ms (median, ${spread(times.cpuMs)}); ${what}`,
    });
    return [
      row('first diff view, cold page', cold, 500, 'a new tab with the HTTP cache off: from the navigation to the diff editor showing the diff'),
      row(`${plan.bigBytes / MiB} MiB diff opened`, bigTimes, 500, 'a click on it in the list (the page loaded) until its lines show'),
      row(`${plan.bigBytes / MiB} MiB history diff opened`, historyTimes, 300, 'a click in Recent decisions until its lines show (read from the history on disk)'),
    ];
  } finally {
    await browser.close().catch(() => {});
    hub.close();
    await agent.close();
    await daemon.close();
  }
}

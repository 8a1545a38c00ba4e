// How long the review makes a person wait, in Debian's Chromium against the real daemon's UI
// (issue 29): the first diff on a cold page (a new tab, nothing cached), a 2 MiB diff opened from
// the list, and a 2 MiB decided diff opened from the history. Each is timed in the page itself,
// from the navigation (cold) or the click to the diff editor showing the diff's lines, the
// median of several tries; the page's own CPU for each (Chromium's TaskDuration) goes beside it.
// Chromium is driven over the bare DevTools protocol (raw-chromium.ts), not Playwright: its
// Network domain would carry each big answer to this process too, in the middle of the timing.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildIfStale } from '../../src/cli/start.ts';
import { connectControl, requestOpenUrl } from '../../src/web/control-client.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../ui/chromium.ts';
import { waitFor } from '../peers/wait.ts';
import { BenchAgent } from './agent.ts';
import { PatchbayDaemon } from './daemon.ts';
import { RawChromium, type RawPage } from './raw-chromium.ts';
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
async function taskSeconds(page: RawPage): Promise<number> {
  const { metrics } = await page.send<{ metrics: { name: string; value: number }[] }>('Performance.getMetrics');
  return metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
}

/** A new tab with CPU metrics on (the Network domain stays off: it would copy the page's traffic here). */
async function newPage(browser: RawChromium): Promise<RawPage> {
  const page = await browser.newPage(1280, 800);
  await page.send('Performance.enable', { timeDomain: 'threadTicks' });
  return page;
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
async function profiledTry<T>(page: RawPage, dir: string | undefined, name: string, once: () => Promise<T>): Promise<T> {
  if (dir === undefined) return once();
  await page.send('Profiler.enable');
  await page.send('Profiler.setSamplingInterval', { interval: 200 });
  await page.send('Profiler.start');
  try {
    return await once();
  } finally {
    const { profile } = await page.send<{ profile: unknown }>('Profiler.stop');
    await writeFile(join(dir, `ui-${name}.cpuprofile`), JSON.stringify(profile));
  }
}

export async function measureUiViews(root: string, progress: (message: string) => void, plan: UiPlan = UI_PLAN, profileDir?: string): Promise<Measurement[]> {
  if (!buildIfStale('browser', process.env)) throw new Error('the renderer did not build');
  const daemon = await PatchbayDaemon.start(root);
  const agent = await BenchAgent.connect(`ws://127.0.0.1:${daemon.door.port}`, daemon.door.token);
  const browser = await RawChromium.launch(CHROMIUM, CHROMIUM_ARGS);
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
    const signIn = await browser.newPage(1280, 800);
    const openUrl = await requestOpenUrl(daemon.dirs.home);
    await signIn.send('Page.navigate', { url: openUrl });
    await waitFor(async () => (await signIn.evaluate<boolean>("[...document.querySelectorAll('h1, h2')].some((h) => /Review inbox/.test(h.textContent))")), { timeoutMs: 20_000 });
    const origin = new URL(openUrl).origin;
    await signIn.close();

    // A new tab loads everything afresh because Patchbay serves every file no-store: no HTTP
    // cache, so no code cache either. Checked here, since the cold row rests on it.
    const served = await fetch(`${origin}/`);
    if (served.headers.get('cache-control') !== 'no-store') throw new Error(`the page is served with cache-control ${served.headers.get('cache-control')}, not no-store: a new tab would not be cold`);
    const coldTab = async (profile?: string): Promise<{ ms: number; cpuMs: number }> => {
      const page = await newPage(browser);
      try {
        return await profiledTry(page, profile, 'cold', async () => {
          const before = await taskSeconds(page);
          await page.goto(`${origin}/#/review/${listed.small}`);
          const ms = await page.evaluate<number>(timedView('values.ts', ''));
          return { ms, cpuMs: ((await taskSeconds(page)) - before) * 1000 };
        });
      } finally {
        await page.close();
      }
    };
    // Two tabs untimed first: Chromium's first new tabs and the daemon's first sign-in renewals
    // run code for the first time, which a person's long-running browser and Patchbay did long ago.
    for (let i = 0; i < 2; i++) await coldTab();
    progress('UI: the first diff on a cold page');
    const cold = await timeTries(plan.tries, (i) => coldTab(i === plan.tries - 1 ? profileDir : undefined));

    const page = await newPage(browser);
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
      return profiledTry(page, i === plan.tries - 1 ? profileDir : undefined, 'big', async () => {
        const before = await taskSeconds(page);
        const ms = await page.evaluate<number>(timedView('big.ts', clickFile('big.ts')));
        return { ms, cpuMs: ((await taskSeconds(page)) - before) * 1000 };
      });
    });

    progress(`UI: a ${plan.bigBytes / MiB} MiB decided diff opened from the history`);
    const historyTimes = await timeTries(plan.tries, async (i) => {
      await back();
      await page.evaluate("document.querySelector('details.history').open = true");
      return profiledTry(page, i === plan.tries - 1 ? profileDir : undefined, 'history', async () => {
        const before = await taskSeconds(page);
        const ms = await page.evaluate<number>(timedView('decided.ts', clickFile('decided.ts')));
        return { ms, cpuMs: ((await taskSeconds(page)) - before) * 1000 };
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
      row('first diff view, cold page', cold, 500, 'a new tab (every file is served no-store: nothing cached): from the navigation to the diff editor showing the diff'),
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

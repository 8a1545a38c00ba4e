// `patchbay pi start` and `resume` wait for pi to come up (a second or two: it loads its
// settings and extensions). When that takes a while, the person is told what it waits for, on
// stderr, from the daemon's `hosted_start` records; a quick start prints nothing but the id.
import type { HubApi, HubEvent } from '../api/types.ts';
import type { CliIo } from './command.ts';

/** A start quicker than this says nothing; a slower one says what it waits for. */
export const PROGRESS_AFTER_MS = 1000;

/** Which start to follow: pi in a folder, a hosted session by id, or (a saved session's file) whichever starts. */
export interface StartOf {
  cwd?: string;
  id?: string;
}

/** What a start waits for at each stage (the daemon's `hosted_start` records). */
function waitingFor(event: Record<string, unknown> | null, of: StartOf): string {
  const cwd = typeof event?.cwd === 'string' ? event.cwd : (of.cwd ?? 'its folder');
  switch (event?.stage) {
    case 'door':
      return `starting pi in ${cwd}: writing Patchbay's door lockfile so pi-ide finds it…`;
    case 'spawned':
      return `pi is starting${typeof event.pid === 'number' ? ` (pid ${event.pid})` : ''}: waiting for it to answer (it loads its settings and extensions)…`;
    case 'ready':
      return `pi answered after ${seconds(event.ms)}; reading the commands it offers…`;
    default:
      return `starting pi in ${cwd}…`;
  }
}

function seconds(ms: unknown): string {
  return typeof ms === 'number' ? `${(ms / 1000).toFixed(1)} s` : 'a while';
}

/**
 * Runs a start (or resume) of pi; if it is not done within PROGRESS_AFTER_MS, says on stderr
 * what it waits for, and again at each next stage.
 */
export async function withStartProgress<T>(hub: HubApi, io: CliIo, of: StartOf, start: () => Promise<T>, now: () => number = Date.now): Promise<T> {
  const began = now();
  let latest: Record<string, unknown> | null = null;
  let said: string | null = null;
  let showing = false;
  const say = (): void => {
    const line = waitingFor(latest, of);
    if (line === said) return;
    said = line;
    io.stderr.write(`[${line}]\n`);
  };
  const unsubscribe = hub.subscribe((event: HubEvent) => {
    if (event.type !== 'pi' || event.event.type !== 'hosted_start') return;
    if ((of.cwd !== undefined && event.event.cwd !== of.cwd) || (of.id !== undefined && event.id !== of.id)) return;
    latest = event.event;
    if (showing) say();
  });
  const timer = setTimeout(() => {
    showing = true;
    say();
  }, PROGRESS_AFTER_MS);
  try {
    const result = await start();
    if (showing) io.stderr.write(`[pi is up after ${seconds(now() - began)}]\n`);
    return result;
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}

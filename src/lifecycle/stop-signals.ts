// What asks Patchbay (the daemon or the desktop app) to stop cleanly: a stop that is not clean
// lets pi-ide write a held edit unreviewed (it does when its link drops) and leaves the editors'
// lockfiles hidden, so every such signal goes through the clean stop.
import { isatty } from 'node:tty';

/**
 * Ctrl-C, `kill`, and its terminal closing (SIGHUP) while it has one. Without a terminal (under
 * nohup, which leaves it none) a SIGHUP listener would undo nohup's ignoring it.
 */
export function stopSignals(hasTerminal: boolean): NodeJS.Signals[] {
  return hasTerminal ? ['SIGINT', 'SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM'];
}

/** stopSignals for this process: whether any of its standard streams is a terminal. */
export function processStopSignals(): NodeJS.Signals[] {
  return stopSignals(isatty(0) || isatty(1) || isatty(2));
}

/**
 * A reader of its output that went away (`… | tee log`, then Ctrl-C; a closed terminal: EPIPE
 * or EIO) costs the log, never the clean stop.
 */
export function outliveOutputReaders(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

// The notice a core writes when it starts after the one before it died: when, how, how long
// agents waited, and that nothing was dropped (or what was).
import type { Notice } from '../api/types.ts';
import type { CoreCrash } from '../keeper/protocol.ts';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function coreCrashNotice(crash: CoreCrash, startedAt: number, kept: { connections: number; held: number }): Notice {
  const how = crash.signal ? `killed by ${crash.signal}` : `exit code ${crash.code}`;
  // A core killed by a signal said nothing as it died: its last line on stderr is an older one.
  const last = crash.signal ? undefined : crash.stderr.at(-1);
  const said = last ? ` Its last words: ${last}` : '';
  return {
    id: `core-crash-${crash.at}`,
    kind: 'core-crashed',
    at: crash.at,
    message:
      `Patchbay's core (pid ${crash.pid}) stopped unexpectedly (${how}) and a new one took over ${startedAt - crash.at} ms later: ` +
      `${plural(kept.connections, 'connection')} and ${plural(kept.held, 'pending edit')} were kept.${said}`,
  };
}

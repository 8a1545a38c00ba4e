// On-demand CPU profiles and heap snapshots of a benchmark child, so one phase (not start-up) is
// what gets looked at. Shared by the children's command tables:
// {"cmd":"profileStart"}, {"cmd":"profileStop","path":"…"}, {"cmd":"heapSnapshot","path":"…"}.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { field, type CommandHandlers } from '../peers/cli.ts';

export function profilerCommands(): CommandHandlers {
  let session: Session | null = null;
  return {
    profileStart: async () => {
      if (session) throw new Error('profileStart: a profile is already running');
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      // 100 µs: fine enough to see a per-message cost of a few microseconds in aggregate.
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
      return null;
    },
    profileStop: async (c) => {
      if (!session) throw new Error('profileStop: no profile is running');
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      session = null;
      const path = field(c, 'path');
      await writeFile(path, JSON.stringify(profile));
      return { path };
    },
    heapSnapshot: async (c) => {
      const path = field(c, 'path');
      const heap = new Session();
      heap.connect();
      const chunks: string[] = [];
      heap.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));
      try {
        await heap.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      } finally {
        heap.disconnect();
      }
      await writeFile(path, chunks.join(''));
      return { path };
    },
  };
}

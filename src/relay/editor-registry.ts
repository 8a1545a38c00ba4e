// The live editors, as discovery reports them, with what the relay knows of each (its one
// link, when it was last focused). The relay routes by it and the snapshot lists it: one registry.
import type { EditorView } from '../api/types.ts';
import type { EditorConnection } from './editor-connection.ts';
import type { LiveEditor } from './editor-link.ts';

export interface EditorEntry {
  instance: LiveEditor;
  connection: EditorConnection;
  /** Epoch ms of its last selection_changed. */
  focusedAt: number | null;
}

/**
 * Two live instances with the same identity (same ideName and folder) would share an id; the
 * later one is told apart by its port so both can be bound.
 */
export function uniqueIds<E extends LiveEditor>(editors: readonly E[]): E[] {
  const seen = new Set<string>();
  return [...editors]
    .sort((a, b) => a.port - b.port)
    .map((e) => {
      const id = seen.has(e.id) ? `${e.id}~${e.port}` : e.id;
      seen.add(id);
      return id === e.id ? e : { ...e, id };
    });
}

export class EditorRegistry {
  private readonly entries = new Map<string, EditorEntry>();

  constructor(private readonly connectionFor: (instance: LiveEditor) => EditorConnection) {}

  /**
   * Applies discovery's list. Returns the instances that went away (a new port, pid or token
   * is a new instance): their links are closed. Folders may change in place.
   */
  update(list: readonly LiveEditor[]): { added: EditorEntry[]; removed: EditorEntry[] } {
    const next = new Map(uniqueIds(list).map((e) => [e.id, e]));
    const removed: EditorEntry[] = [];
    for (const [id, entry] of this.entries) {
      const now = next.get(id);
      const { port, pid, authToken } = entry.instance;
      if (!now || now.port !== port || now.pid !== pid || now.authToken !== authToken) {
        this.entries.delete(id);
        entry.connection.close();
        removed.push(entry);
      }
    }
    const added: EditorEntry[] = [];
    for (const instance of next.values()) {
      const entry = this.entries.get(instance.id);
      if (entry) entry.instance = instance;
      else {
        const created = { instance, connection: this.connectionFor(instance), focusedAt: null };
        this.entries.set(instance.id, created);
        added.push(created);
      }
    }
    return { added, removed };
  }

  get(id: string): EditorEntry | undefined {
    return this.entries.get(id);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  values(): IterableIterator<EditorEntry> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The snapshot's editors; `alive`: Patchbay's link to it is open. */
  views(): EditorView[] {
    const byPort = [...this.entries.values()].sort((a, b) => a.instance.port - b.instance.port);
    return byPort.map(({ instance, connection, focusedAt }) => ({
      id: instance.id,
      ideName: instance.ideName,
      workspaceFolders: instance.workspaceFolders,
      port: instance.port,
      pid: instance.pid,
      dialect: instance.dialect,
      authenticated: instance.authToken !== null,
      alive: connection.alive,
      lockfile: instance.lockfile,
      focusedAt,
      ...connection.view,
    }));
  }

  /** Closes every link. */
  close(): void {
    for (const entry of this.entries.values()) entry.connection.close();
    this.entries.clear();
  }
}

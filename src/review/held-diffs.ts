// Every agent's openDiff that no decision has answered yet, kept where a core that dies cannot
// take it along: the request's bytes in `<home>/held/` (0600, the home's own checks), its facts
// with the keeper (core/host.ts hold). A core that follows (a restart, a crash) puts each back
// in the inbox and answers the agent then; after the whole daemon died, the next start compares
// the agent's file with the proposal here (crash-trace.ts). Writing 10 MiB there costs ~2 ms of
// CPU, off the way of the edit: the request goes to the editor first.
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { CoreHost } from '../core/host.ts';
import { writePrivateFile } from '../fs/private-file.ts';
import { HOME_FILES } from '../fs/home-files.ts';

const rpcId = z.union([z.string(), z.number()]);

/** What a next core needs to put a held diff back (beside the request's bytes). */
export const heldFactsSchema = z.object({
  session: z.string(),
  /** The agent's request id: the answer goes to it. */
  request: rpcId,
  tabName: z.string(),
  path: z.string(),
  agent: z.string(),
  createdAt: z.number(),
  /** Where it was offered, and the id of that request on the editor's connection. */
  offer: z.object({ editorId: z.string(), tab: z.string(), conn: z.string(), id: rpcId }).nullable(),
});

export type HeldFacts = z.infer<typeof heldFactsSchema>;

export class HeldDiffs {
  private readonly facts = new Map<string, HeldFacts>();
  /** Its file, once written (null while it is being written). */
  private readonly files = new Map<string, string | null>();
  private readonly dir: string;

  constructor(
    home: string,
    private readonly host: CoreHost,
    private readonly log: (message: string) => void,
    /** A diff's request is whole in its file (the pending log notes where). */
    private readonly onFile: (id: string, file: string) => void = () => {},
  ) {
    this.dir = join(home, HOME_FILES.held);
  }

  /** The file a held diff's request is (being) written to. */
  fileOf(id: string): string | null {
    return this.files.get(id) ?? null;
  }

  /**
   * A new diff: its facts go to the host at once (a core that dies now still lets the next one
   * answer the agent), its bytes to a file, and the host hears of the file once it is whole.
   */
  hold(id: string, facts: HeldFacts, conn: string | null, bytes: Buffer): void {
    this.facts.set(id, facts);
    this.files.set(id, null);
    if (conn !== null) this.host.hold({ id, conn, file: '', facts });
    const file = join(this.dir, `${id}-${randomBytes(4).toString('hex')}.frame`);
    void mkdir(this.dir, { recursive: true, mode: 0o700 })
      .then(() => writePrivateFile(file, bytes))
      .then(
        () => {
          if (!this.facts.has(id)) return void rm(file, { force: true }); // decided while it was written
          this.files.set(id, file);
          this.onFile(id, file);
          if (conn !== null) this.host.hold({ id, conn, file, facts: this.facts.get(id)! });
        },
        (err: Error) => this.log(`diff ${id}: could not keep its request in ${this.dir} (${err.message}); a crash of Patchbay's core now would lose it`),
      );
  }

  /** A diff a core before this one held: its file is already there. */
  adopt(id: string, facts: HeldFacts, file: string): void {
    this.facts.set(id, facts);
    this.files.set(id, file);
  }

  /** It was offered to an editor: a next core waits for that editor's answer to the same request. */
  offered(id: string, conn: string | null, offer: HeldFacts['offer']): void {
    const facts = this.facts.get(id);
    if (!facts) return;
    const next = { ...facts, offer };
    this.facts.set(id, next);
    const file = this.files.get(id);
    if (conn !== null) this.host.hold({ id, conn, file: file ?? '', facts: next });
  }

  /** Decided (or withdrawn): the host forgets it and its file goes. */
  release(id: string): void {
    if (!this.facts.delete(id)) return;
    this.host.release(id);
    const file = this.files.get(id);
    this.files.delete(id);
    if (file) void rm(file, { force: true }).catch((err: Error) => this.log(`${file}: ${err.message}`));
  }

  /** A diff a core before this one held that will not come back (its agent left): the host forgets it, its file goes. */
  forget(id: string, file: string): void {
    this.host.release(id);
    if (file !== '') void rm(file, { force: true }).catch((err: Error) => this.log(`${file}: ${err.message}`));
  }

  /** How many diffs are held now. */
  get size(): number {
    return this.facts.size;
  }
}

// What Patchbay tells the person until they dismiss it: that its core died and came back, what
// a dead run's pending edits became (crash-trace.ts), that the door had to move. Kept in
// `<home>/notices.json` (0600), so a notice outlives a restart until it is read and dismissed.
import { join } from 'node:path';
import { z } from 'zod';
import type { Notice } from '../api/types.ts';
import { HOME_FILES } from '../fs/home-files.ts';
import { readPrivateFile, writePrivateFile } from '../fs/private-file.ts';

const MAX_BYTES = 1024 * 1024;
/** Older notices go first beyond this many. */
const MAX_NOTICES = 50;

const noticeSchema = z.object({
  id: z.string(),
  kind: z.enum(['core-crashed', 'crash-trace', 'port-taken']),
  at: z.number(),
  message: z.string(),
  files: z
    .array(
      z.object({
        diffId: z.string(),
        path: z.string(),
        agent: z.string(),
        sessionId: z.string(),
        verdict: z.enum(['written', 'not-written', 'changed', 'unknown']),
      }),
    )
    .optional(),
});
const fileSchema = z.object({ version: z.literal(1), notices: z.array(noticeSchema) });

export class Notices {
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private notices: Notice[],
    private readonly log: (message: string) => void,
  ) {}

  static async open(home: string, log: (message: string) => void): Promise<Notices> {
    const path = join(home, HOME_FILES.notices);
    let notices: Notice[] = [];
    try {
      const read = await readPrivateFile(path, MAX_BYTES);
      if (read.kind === 'unsafe') log(`${path}: not used because ${read.why}`);
      if (read.kind === 'text') {
        const parsed = fileSchema.safeParse(JSON.parse(read.text));
        if (parsed.success) notices = parsed.data.notices;
        else log(`${path}: not a list of notices; ignored`);
      }
    } catch (err) {
      log(`${path} could not be read: ${(err as Error).message}`);
    }
    return new Notices(path, notices, log);
  }

  list(): Notice[] {
    return this.notices;
  }

  /** Adds (or replaces, by id) a notice; the newest come first. */
  add(notice: Notice): void {
    this.notices = [notice, ...this.notices.filter((n) => n.id !== notice.id)].slice(0, MAX_NOTICES);
    this.save();
  }

  /** False when there is no such notice. */
  dismiss(id: string): boolean {
    const before = this.notices.length;
    this.notices = this.notices.filter((n) => n.id !== id);
    if (this.notices.length === before) return false;
    this.save();
    return true;
  }

  async close(): Promise<void> {
    await this.writes;
  }

  private save(): void {
    const text = `${JSON.stringify({ version: 1, notices: this.notices })}\n`;
    this.writes = this.writes.then(() => writePrivateFile(this.path, text)).catch((err: Error) => this.log(`${this.path}: ${err.message}`));
  }
}

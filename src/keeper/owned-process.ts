// A child process the keeper owns for its core (a hosted pi; later an SSH tunnel): it lives
// through a restart or a crash of the core. Its stdout is relayed as whole lines only (a core
// never sees half a JSONL record, and a new core starts at a line boundary); while no core is
// attached, lines and the exit wait here. Its stdin gets what the core writes, as written.
// Extension UI requests pi asked and no stdin line answered yet are kept, so a new core can
// show them again (pi waits for the answer as long as it takes).
import type { ChildProcess } from 'node:child_process';
import { onExitDrained, spawnPiped } from '../lifecycle/spawn-piped.ts';
import type { SpawnRequest } from './protocol.ts';

export interface OwnedProcessEvents {
  out(text: string): void;
  err(text: string): void;
  exit(code: number | null, signal: string | null): void;
}

/** What the core asks the keeper to run. */
export type OwnedSpec = SpawnRequest;

/** What waits for a core, at most: beyond it the oldest lines go (and a log line says so). */
const MAX_WAITING_CHARS = 64 * 1024 * 1024;
/** A line longer than this is cut off (pi's own cap on a JSONL line is the same). */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
/** Requests whose answers a new core must give: pi's dialogs (not notify, status…). */
const DIALOG = /"type"\s*:\s*"extension_ui_request"/;
const DIALOG_METHODS = new Set(['select', 'confirm', 'input', 'editor']);

type Output = { t: 'out' | 'err'; text: string } | { t: 'exit'; code: number | null; signal: string | null };

export class OwnedProcess {
  readonly id: string;
  meta: unknown;
  private readonly child: ChildProcess;
  private partial = '';
  private waiting: Output[] = [];
  private waitingChars = 0;
  private events: OwnedProcessEvents | null = null;
  /** Dialog requests (their JSONL lines) by id, until a stdin line answers them. */
  private readonly unanswered = new Map<string, string>();
  exited: { code: number | null; signal: string | null } | null = null;
  readonly started: Promise<number>;

  constructor(
    spec: OwnedSpec,
    private readonly log: (message: string) => void,
  ) {
    this.id = spec.id;
    this.meta = spec.meta;
    ({ child: this.child, started: this.started } = spawnPiped(spec));
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => this.stdout(chunk));
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (text: string) => this.emit({ t: 'err', text }));
    onExitDrained(this.child, (code, signal) => {
      if (this.partial !== '') this.emit({ t: 'out', text: this.partial });
      this.partial = '';
      this.exited = { code, signal };
      this.emit({ t: 'exit', code, signal });
    });
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  /** The dialogs pi still waits on, as the lines it sent. */
  unansweredDialogs(): string[] {
    return [...this.unanswered.values()];
  }

  /** A core takes the stream; what waited for one comes first. Null: no core (lines wait). */
  attach(events: OwnedProcessEvents | null): void {
    this.events = events;
    if (events === null) return;
    const waiting = this.waiting;
    this.waiting = [];
    this.waitingChars = 0;
    for (const item of waiting) this.deliver(item);
  }

  write(text: string): void {
    if (text.includes('"extension_ui_response"')) this.answered(text);
    this.child.stdin!.write(text);
  }

  endInput(): void {
    this.child.stdin!.end();
  }

  signal(signal: NodeJS.Signals, group: boolean): void {
    const pid = this.child.pid;
    if (pid === undefined || this.exited) return;
    try {
      if (group) process.kill(-pid, signal);
      else this.child.kill(signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') this.log(`child ${this.id}: ${signal}: ${(err as Error).message}`);
    }
  }

  private stdout(chunk: string): void {
    const text = this.partial + chunk;
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      this.partial = text.length > MAX_LINE_CHARS ? '' : text;
      if (text.length > MAX_LINE_CHARS) this.log(`child ${this.id}: a line over ${MAX_LINE_CHARS} characters was dropped`);
      return;
    }
    this.partial = text.slice(end + 1);
    const lines = text.slice(0, end + 1);
    if (DIALOG.test(lines)) for (const line of lines.split('\n')) this.noteDialog(line);
    this.emit({ t: 'out', text: lines });
  }

  private noteDialog(line: string): void {
    if (!DIALOG.test(line)) return;
    try {
      const record = JSON.parse(line) as { id?: unknown; method?: unknown };
      if (typeof record.id === 'string' && typeof record.method === 'string' && DIALOG_METHODS.has(record.method)) this.unanswered.set(record.id, `${line}\n`);
    } catch {
      // Not a record: the core logs it as pi's garbage.
    }
  }

  private answered(text: string): void {
    for (const line of text.split('\n')) {
      try {
        const record = JSON.parse(line) as { type?: unknown; id?: unknown };
        if (record.type === 'extension_ui_response' && typeof record.id === 'string') this.unanswered.delete(record.id);
      } catch {
        // not a whole record
      }
    }
  }

  private emit(item: Output): void {
    if (this.events) return this.deliver(item);
    this.waiting.push(item);
    if ('text' in item) this.waitingChars += item.text.length;
    while (this.waitingChars > MAX_WAITING_CHARS && this.waiting.length > 1) {
      const dropped = this.waiting.shift()!;
      if ('text' in dropped) this.waitingChars -= dropped.text.length;
      this.log(`child ${this.id}: no core took its output for a while; its oldest output was dropped`);
    }
  }

  private deliver(item: Output): void {
    if (item.t === 'exit') this.events!.exit(item.code, item.signal);
    else if (item.t === 'out') this.events!.out(item.text);
    else this.events!.err(item.text);
  }
}

// Strict JSONL framing for pi's RPC mode: one JSON value per line, split on LF only.
// Node's readline also splits on U+2028/U+2029, which are legal inside JSON strings, so it
// must not be used here. Bytes are decoded with a StringDecoder so a multi-byte character
// split across chunks arrives whole.
import { StringDecoder } from 'node:string_decoder';

/** A line that was not JSON, or was longer than the cap; the stream goes on after it. */
export class JsonlLineError extends Error {
  constructor(
    message: string,
    /** The offending line, cut to a preview. */
    readonly preview: string,
  ) {
    super(message);
    this.name = 'JsonlLineError';
  }
}

export interface JsonlDecoderOptions {
  onRecord(value: unknown): void;
  onError(err: JsonlLineError): void;
  /** Characters one line may hold before it is dropped (default 64 Mi). */
  maxLineChars?: number;
}

const PREVIEW_CHARS = 120;
const DEFAULT_MAX_LINE_CHARS = 64 * 1024 * 1024;

function preview(line: string): string {
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line;
}

export class JsonlDecoder {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  /** Set while the rest of an over-long line is skipped. */
  private skipping = false;
  private readonly maxLineChars: number;

  constructor(private readonly options: JsonlDecoderOptions) {
    this.maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  }

  push(chunk: Buffer | string): void {
    this.feed(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
  }

  /** The stream ended: a last line without LF still counts. */
  end(): void {
    this.feed(this.decoder.end());
    if (!this.skipping) this.line(this.buffer);
    this.buffer = '';
    this.skipping = false;
  }

  /** Only the new text is searched for LF, so a long line arriving in many chunks costs linear time. */
  private feed(text: string): void {
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      if (this.skipping) this.skipping = false;
      else this.line(this.buffer + text.slice(start, end));
      this.buffer = '';
      start = end + 1;
    }
    this.append(text.slice(start));
  }

  private append(text: string): void {
    if (this.skipping || text === '') return;
    this.buffer += text;
    if (this.buffer.length > this.maxLineChars) {
      this.options.onError(new JsonlLineError(`line over ${this.maxLineChars} characters was dropped`, preview(this.buffer)));
      this.buffer = '';
      this.skipping = true;
    }
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.options.onError(new JsonlLineError(`line is not JSON: ${(err as Error).message}`, preview(line)));
      return;
    }
    this.options.onRecord(value);
  }
}

/** One record as pi reads it. JSON.stringify leaves U+2028 raw; that is fine for an LF-only reader. */
export function encodeJsonl(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

// A traffic frame as a person reads it: indented JSON, even when Patchbay kept only its start.
import type { TrafficEntry } from '../../../src/api/types.ts';

/** The log keeps each long frame's start and marks the cut with a "…" (a whole frame is as many bytes as it says). */
export function isCut(entry: Pick<TrafficEntry, 'preview' | 'bytes'>): boolean {
  return entry.preview.endsWith('…') && new TextEncoder().encode(entry.preview).length !== entry.bytes;
}

/** Identifies a frame across polls (the list shifts as old frames fall out of the log). */
export function frameKey(entry: TrafficEntry): string {
  return `${entry.at}|${entry.dir}|${entry.editorId ?? ''}|${entry.id ?? ''}|${entry.bytes}`;
}

/**
 * Indents JSON two spaces a level. Whole frames go through JSON.parse; a cut one is indented
 * token by token (strings kept intact), so its start still reads as structure.
 */
export function prettyFrame(text: string): string {
  if (!/^\s*[[{]/.test(text)) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return indentLoosely(text);
  }
}

function indentLoosely(text: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  const newline = (): string => `\n${'  '.repeat(Math.max(0, depth))}`;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (inString) {
      out += c;
      if (c === '\\' && i + 1 < text.length) out += text.charAt(++i);
      else if (c === '"') inString = false;
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        out += c;
        break;
      case '{':
      case '[':
        depth++;
        out += c + newline();
        break;
      case '}':
      case ']':
        depth--;
        out += newline() + c;
        break;
      case ',':
        out += c + newline();
        break;
      case ':':
        out += ': ';
        break;
      default:
        if (!/\s/.test(c)) out += c;
    }
  }
  return out;
}

// An editor answers pi-ide's getDiagnostics with the same bytes as the time before but for the
// id, as long as the diagnostics have not changed. A link keeps the last small answer it checked
// to be JSON (json-check.ts): a next one that is those bytes around another integer id is JSON
// too, with the same envelope, and needs no walk of its own.
import { digitsEnd, type CheckedEnvelope } from './json-check.ts';

/** Answers longer than this are checked as usual (the memo keeps a copy of its bytes). */
const MEMO_BYTES = 4096;

export class AnswerMemo {
  private constructor(
    private readonly bytes: Buffer,
    /** Where its id, an integer, starts and ends. */
    private readonly idStart: number,
    private readonly idEnd: number,
    private readonly envelope: CheckedEnvelope,
  ) {}

  /** A memo of `bytes`, checked to have `envelope`; null for a long one or one whose id is not an integer. */
  static of(bytes: Buffer, envelope: CheckedEnvelope): AnswerMemo | null {
    const idAt = envelope.idAt;
    if (bytes.length > MEMO_BYTES || !idAt || integerEnd(bytes, idAt.start) !== idAt.end) return null;
    // A copy: the frame's buffer may be a view of a bigger one ws read.
    return new AnswerMemo(Buffer.from(bytes), idAt.start, idAt.end, envelope);
  }

  /** The envelope of `bytes` when they are the memo's bytes with another integer id (placed in them); null otherwise. */
  match(bytes: Buffer): CheckedEnvelope | null {
    const { bytes: known, idStart, idEnd: knownIdEnd } = this;
    const idEnd = integerEnd(bytes, idStart);
    if (idEnd < 0 || bytes.length - idEnd !== known.length - knownIdEnd) return null;
    if (bytes.compare(known, 0, idStart, 0, idStart) !== 0) return null;
    if (bytes.compare(known, knownIdEnd, known.length, idEnd, bytes.length) !== 0) return null;
    return { ...this.envelope, idAt: { start: idStart, end: idEnd } };
  }
}

/** Where the JSON integer (no sign, no leading zero) at `at` ends; -1 when none starts there. */
function integerEnd(bytes: Buffer, at: number): number {
  const end = digitsEnd(bytes, at, bytes.length);
  if (end === at || (bytes[at] === 0x30 && end > at + 1)) return -1;
  return end;
}

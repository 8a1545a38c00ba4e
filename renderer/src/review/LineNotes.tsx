// Notes for the agent on lines of an edit (like a review comment): put the cursor on a line of the
// proposal, write the note, and it goes with the decision (quoting the line), in every dialect.
import { useId, useState } from 'react';
import type { LineNote } from '../../../src/api/types.ts';

interface Props {
  /** The line the cursor is on in the proposal (1-based), or null before it has been placed. */
  cursorLine: number | null;
  notes: readonly LineNote[];
  change(notes: LineNote[]): void;
}

export function LineNotes({ cursorLine, notes, change }: Props) {
  const inputId = useId();
  const [writing, setWriting] = useState<number | null>(null);
  const [text, setText] = useState('');
  const add = (): void => {
    if (writing === null || text.trim() === '') return;
    change([...notes.filter((n) => n.line !== writing), { line: writing, text: text.trim() }].sort((a, b) => a.line - b.line));
    setWriting(null);
    setText('');
  };
  const line = cursorLine ?? 1;
  return (
    <div className="line-notes">
      {notes.length > 0 && (
        <ul className="plain" aria-label="Notes for the agent">
          {notes.map((note) => (
            <li key={note.line} className="line-note">
              <span className="meta">Line {note.line}:</span> {note.text}{' '}
              <button type="button" className="link" aria-label={`Remove the note on line ${note.line}`} onClick={() => change(notes.filter((n) => n !== note))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {writing === null ? (
        <button type="button" onClick={() => setWriting(line)} title="Put the cursor on a line of the proposal first">
          Note on line {line}
        </button>
      ) : (
        <form
          className="field-row"
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
        >
          <label htmlFor={inputId}>Note on line {writing}</label>
          <input
            id={inputId}
            autoFocus
            value={text}
            maxLength={2000}
            placeholder="What the agent should know about this line"
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                setWriting(null);
              }
            }}
          />
          <button type="submit" disabled={text.trim() === ''}>
            Add note
          </button>
          <button type="button" onClick={() => setWriting(null)}>
            Cancel
          </button>
        </form>
      )}
    </div>
  );
}

// "Saving…" / "Saved", announced politely, beside whatever was changed.
export function SaveStatus({ busy, saved }: { busy: boolean; saved: boolean }) {
  return (
    <span role="status" className={`save-status${saved ? ' saved' : ''}`}>
      {busy ? 'Saving…' : saved ? 'Saved' : ''}
    </span>
  );
}

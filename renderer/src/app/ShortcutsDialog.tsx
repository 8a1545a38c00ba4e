// Every keyboard shortcut in one list, opened with "?" or the header's button: the view keys
// live here rather than as digits beside the tab names, where they read as counts.
import { useId } from 'react';
import { REVIEW_SHORTCUTS } from '../review/shortcuts.ts';
import { PROMPT_SHORTCUTS } from '../hosted/hosted-model.ts';
import { ShortcutList } from '../ui/ShortcutLegend.tsx';
import { useModal } from '../ui/useModal.ts';
import { VIEWS } from './route.ts';
import '../ui/modal.css';

export const HELP_KEY = '?';

const GROUPS: readonly { title: string; shortcuts: readonly { key: string; label: string }[] }[] = [
  {
    title: 'Anywhere',
    shortcuts: [...VIEWS.map((v) => ({ key: v.key, label: `Go to ${v.label}` })), { key: HELP_KEY, label: 'Show this list' }],
  },
  { title: 'Review', shortcuts: REVIEW_SHORTCUTS },
  { title: 'Prompt box (Sessions)', shortcuts: PROMPT_SHORTCUTS },
];

export function ShortcutsDialog({ close }: { close(): void }) {
  const ref = useModal();
  const titleId = useId();
  return (
    <dialog
      ref={ref}
      className="modal shortcuts-dialog"
      aria-labelledby={titleId}
      onClose={close}
      // The views' single-key shortcuts listen on the window: none may act behind this list.
      onKeyDown={(event) => event.stopPropagation()}
    >
      <h2 id={titleId}>Keyboard shortcuts</h2>
      <p className="meta">Single keys work when no text field has the focus.</p>
      {GROUPS.map((group) => (
        <section key={group.title} aria-label={group.title}>
          <h3>{group.title}</h3>
          <ShortcutList shortcuts={group.shortcuts} />
        </section>
      ))}
      <div className="actions dialog-actions">
        <span className="spacer" />
        <button type="button" className="primary" data-initial-focus onClick={close} aria-keyshortcuts="Escape">
          Close
        </button>
      </div>
    </dialog>
  );
}

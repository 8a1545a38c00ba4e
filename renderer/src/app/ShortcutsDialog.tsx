// Every keyboard shortcut in one list, opened with "?" or the header's button: the view keys
// live here rather than as digits beside the tab names, where they read as counts.
import { REVIEW_SHORTCUTS } from '../review/shortcuts.ts';
import { PROMPT_SHORTCUTS } from '../hosted/hosted-model.ts';
import { ShortcutList } from '../ui/ShortcutLegend.tsx';
import { Modal } from '../ui/Modal.tsx';
import { VIEWS } from './route.ts';

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
  return (
    <Modal title="Keyboard shortcuts" className="shortcuts-dialog" cancel={close}>
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
    </Modal>
  );
}

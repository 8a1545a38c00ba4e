export interface Shortcut {
  key: string;
  label: string;
}

export function ShortcutLegend({ shortcuts }: { shortcuts: readonly Shortcut[] }) {
  return (
    <section className="shortcuts" aria-label="Keyboard shortcuts">
      <h2>Keyboard</h2>
      <ShortcutList shortcuts={shortcuts} />
    </section>
  );
}

/** Each key beside what it does. */
export function ShortcutList({ shortcuts }: { shortcuts: readonly Shortcut[] }) {
  return (
    <dl>
      {shortcuts.map((s) => (
        <div key={s.key}>
          <dt>
            <kbd>{s.key}</kbd>
          </dt>
          <dd>{s.label}</dd>
        </div>
      ))}
    </dl>
  );
}

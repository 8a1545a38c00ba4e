export function ShortcutLegend({ shortcuts }: { shortcuts: readonly { key: string; label: string }[] }) {
  return (
    <section className="shortcuts" aria-label="Keyboard shortcuts">
      <h2>Keyboard</h2>
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
    </section>
  );
}

// Token, cost and context stats (re-read after each reply), and the status lines extensions set.
import { useMemo } from 'react';
import { statsFacts } from './hosted-model.ts';

interface Props {
  stats: unknown;
  statsError: string | null;
  statusLines: Record<string, string>;
}

export function SessionFacts({ stats, statsError, statusLines }: Props) {
  const facts = useMemo(() => statsFacts(stats), [stats]);
  const lines = Object.entries(statusLines);
  return (
    <div className="hosted-facts">
      <section className="hosted-stats" aria-label="Stats">
        {facts.length === 0 ? (
          <span className="meta">{statsError === null ? 'No stats yet' : `No stats: ${statsError}`}</span>
        ) : (
          <dl>
            {facts.map((f) => (
              <div key={f.label}>
                <dt>{f.label}</dt>
                <dd>{f.value}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      {lines.length > 0 && (
        <ul className="plain status-lines" aria-label="Status lines">
          {lines.map(([key, text]) => (
            <li key={key}>
              <span className="meta">{key}</span> {text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

// pi's counters in words (re-read after each reply), and the status lines extensions set.
import { useMemo } from 'react';
import { statsSummary } from './hosted-model.ts';

interface Props {
  stats: unknown;
  statsError: string | null;
  statusLines: Record<string, string>;
}

export function SessionFacts({ stats, statsError, statusLines }: Props) {
  const summary = useMemo(() => statsSummary(stats), [stats]);
  const lines = Object.entries(statusLines);
  return (
    <div className="hosted-facts">
      <p className="hosted-stats meta" aria-label="Stats" role="region">
        {summary ?? (statsError === null ? 'No stats yet' : `No stats: ${statsError}`)}
      </p>
      {lines.length > 0 && (
        <ul className="plain status-lines" aria-label="Status lines">
          {lines.map(([key, text]) => (
            <li key={key} title={key}>
              {text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

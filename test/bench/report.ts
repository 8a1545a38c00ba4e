// Statistics and the result table: pure functions, so they are tested without a benchmark run.

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('percentile of no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** How a row is judged: a ratio to the bare relay, or an absolute bound on Patchbay's value. */
export type Target =
  | { kind: 'ratio-max'; max: number }
  | { kind: 'ratio-min'; min: number }
  | { kind: 'value-max'; max: number };

export interface Measurement {
  metric: string;
  unit: string;
  /** null when there is no bare-relay equivalent. */
  bare: number | null;
  patchbay: number | null;
  target: Target;
  /** What was measured, how many samples, anything unusual. */
  note?: string;
}

export interface Row extends Measurement {
  ratio: number | null;
  pass: boolean | null;
}

export function judge(m: Measurement): Row {
  const ratio = m.bare !== null && m.patchbay !== null && m.bare > 0 ? m.patchbay / m.bare : null;
  let pass: boolean | null = null;
  if (m.target.kind === 'value-max') pass = m.patchbay === null ? null : m.patchbay <= m.target.max;
  else if (ratio !== null) pass = m.target.kind === 'ratio-max' ? ratio <= m.target.max : ratio >= m.target.min;
  return { ...m, ratio, pass };
}

export function describeTarget(target: Target, unit: string): string {
  if (target.kind === 'ratio-max') return `≤ ${target.max}× bare`;
  if (target.kind === 'ratio-min') return `≥ ${target.min}× bare`;
  return `≤ ${target.max} ${unit}`;
}

function formatValue(value: number | null, unit: string): string {
  if (value === null) return '—';
  const digits = value >= 1000 ? 0 : value >= 100 ? 1 : value >= 10 ? 2 : 3;
  return `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

function layout(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

const ratioText = (ratio: number | null): string => (ratio === null ? '—' : `${ratio.toFixed(2)}×`);

/** A plain-text table; FAIL is spelled out so it cannot be missed. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['metric', 'bare relay', 'patchbay', 'ratio', 'target', 'result'];
  const body = rows.map((r) => [
    r.metric,
    formatValue(r.bare, r.unit),
    formatValue(r.patchbay, r.unit),
    ratioText(r.ratio),
    describeTarget(r.target, r.unit),
    r.pass === null ? 'n/a' : r.pass ? 'pass' : 'FAIL',
  ]);
  return layout(header, body);
}

/**
 * One metric over several runs: the median of each side, the median of the runs' own ratios
 * (each against the bare relay of its own run), judged on that, and every run's own row.
 */
export interface Summary extends Row {
  runs: Row[];
}

function medianOf(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : median(known);
}

/** Each metric (in the order first measured) over the runs that measured it. */
export function summarize(runs: readonly (readonly Row[])[]): Summary[] {
  const metrics = [...new Set(runs.flatMap((rows) => rows.map((r) => r.metric)))];
  return metrics.map((metric) => {
    const rows = runs.flatMap((r) => r.filter((row) => row.metric === metric));
    const bare = medianOf(rows.map((r) => r.bare));
    const patchbay = medianOf(rows.map((r) => r.patchbay));
    const judged = judge({ ...rows[0]!, bare, patchbay });
    const ratio = medianOf(rows.map((r) => r.ratio));
    const target = judged.target;
    const pass = target.kind === 'value-max' || ratio === null ? judged.pass : target.kind === 'ratio-max' ? ratio <= target.max : ratio >= target.min;
    return { ...judged, ratio, pass, runs: rows };
  });
}

/** The spread over the runs: of the ratio where the target is one, else of Patchbay's value. */
export function spreadOf(summary: Summary): string {
  const ratioTarget = summary.target.kind !== 'value-max';
  const values = summary.runs.flatMap((r) => {
    const v = ratioTarget ? r.ratio : r.patchbay;
    return v === null ? [] : [v];
  });
  if (values.length === 0) return '—';
  const [low, high] = [Math.min(...values), Math.max(...values)];
  return ratioTarget ? `${ratioText(low)}–${ratioText(high)}` : `${formatValue(low, '').trim()}–${formatValue(high, summary.unit)}`;
}

/** The table over several runs: medians, the spread, and how many runs met the target. */
export function formatSummary(summaries: readonly Summary[]): string {
  const header = ['metric', 'bare relay', 'patchbay', 'ratio', 'spread', 'target', 'runs met'];
  const body = summaries.map((s) => {
    const judged = s.runs.filter((r) => r.pass !== null);
    const met = judged.filter((r) => r.pass).length;
    return [
      s.metric,
      formatValue(s.bare, s.unit),
      formatValue(s.patchbay, s.unit),
      ratioText(s.ratio),
      spreadOf(s),
      describeTarget(s.target, s.unit),
      judged.length === 0 ? 'n/a' : `${met}/${judged.length}${s.pass === false ? ' FAIL' : ''}`,
    ];
  });
  return layout(header, body);
}

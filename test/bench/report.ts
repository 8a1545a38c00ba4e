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

/** A plain-text table; FAIL is spelled out so it cannot be missed. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['metric', 'bare relay', 'patchbay', 'ratio', 'target', 'result'];
  const body = rows.map((r) => [
    r.metric,
    formatValue(r.bare, r.unit),
    formatValue(r.patchbay, r.unit),
    r.ratio === null ? '—' : `${r.ratio.toFixed(2)}×`,
    describeTarget(r.target, r.unit),
    r.pass === null ? 'n/a' : r.pass ? 'pass' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

// pi's session stats (`get_session_stats`) as one line of words for people: what the header
// of a hosted session and `patchbay pi stats` show instead of a wall of raw counters.
// No node imports: the renderer shows the same line.
import { isObject } from '../api/json.ts';

/** 950, 1.2k, 45k, 1.25M: token counts at a glance. */
export function compactNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 1_000_000) return `${trim(n / 1000, abs < 10_000 ? 1 : 0)}k`;
  return `${trim(n / 1_000_000, 2)}M`;
}

function trim(n: number, digits: number): string {
  return n.toFixed(digits).replace(/\.0+$/, '').replace(/(\.\d*?)0+$/, '$1');
}

export function formatCost(dollars: number): string {
  if (dollars === 0) return '$0';
  if (Math.abs(dollars) < 0.01) return `$${dollars.toFixed(4)}`;
  return `$${dollars.toFixed(2)}`;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * "3 prompts · 12 tool calls · 45k tokens ($0.42) · context 30% of 128k", leaving out what pi did
 * not report; null when it reported nothing to say.
 */
export function statsSummary(stats: unknown): string | null {
  if (!isObject(stats)) return null;
  const parts: string[] = [];
  const prompts = num(stats.userMessages);
  if (prompts !== null) parts.push(plural(prompts, 'prompt'));
  const tools = num(stats.toolCalls);
  if (tools !== null && tools > 0) parts.push(plural(tools, 'tool call'));
  const tokens = isObject(stats.tokens) ? num(stats.tokens.total) : null;
  const cost = num(stats.cost);
  if (tokens !== null) parts.push(`${compactNumber(tokens)} tokens${cost !== null && cost > 0 ? ` (${formatCost(cost)})` : ''}`);
  else if (cost !== null && cost > 0) parts.push(formatCost(cost));
  const context = isObject(stats.contextUsage) ? stats.contextUsage : null;
  const window = context ? num(context.contextWindow) : null;
  if (context && window !== null) {
    const percent = num(context.percent);
    const share = percent === null ? null : percent < 0.1 ? '<0.1' : percent < 1 ? percent.toFixed(1) : String(Math.round(percent));
    parts.push(share === null ? `context of ${compactNumber(window)} (unknown until the next reply)` : `context ${share}% of ${compactNumber(window)}`);
  }
  return parts.length > 0 ? parts.join(' · ') : null;
}

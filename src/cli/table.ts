// Plain-text tables for the terminal: left-aligned columns, two spaces apart, no trailing blanks.

export function table(rows: readonly (readonly string[])[], indent = '  '): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) => indent + row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd())
    .map((line) => `${line}\n`)
    .join('');
}

/** `12s`, `5m`, `3h`, `2d`: how long ago, for people scanning a list. */
export function age(then: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

export function onOff(value: boolean | null): string {
  return value === null ? 'unset' : value ? 'on' : 'off';
}

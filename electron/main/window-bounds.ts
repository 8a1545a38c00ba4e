// Where a window reopens: where it was, unless that place is no longer on any screen (a
// monitor was unplugged), then on the primary screen. Pure; the store is at the edge.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Parses a stored rectangle; anything else (hand-edited, older format) counts as none. */
export function parseRect(value: unknown): Rect | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { x, y, width, height } = value as Record<string, unknown>;
  const ints = [x, y, width, height].every((n) => typeof n === 'number' && Number.isFinite(n));
  if (!ints || (width as number) <= 0 || (height as number) <= 0) return undefined;
  return { x: Math.round(x as number), y: Math.round(y as number), width: Math.round(width as number), height: Math.round(height as number) };
}

function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function fitInside(rect: Rect, area: Rect): Rect {
  const width = Math.min(rect.width, area.width);
  const height = Math.min(rect.height, area.height);
  const x = Math.min(Math.max(rect.x, area.x), area.x + area.width - width);
  const y = Math.min(Math.max(rect.y, area.y), area.y + area.height - height);
  return { x, y, width, height };
}

function centered(size: { width: number; height: number }, area: Rect): Rect {
  const width = Math.min(size.width, area.width);
  const height = Math.min(size.height, area.height);
  return { x: area.x + Math.round((area.width - width) / 2), y: area.y + Math.round((area.height - height) / 2), width, height };
}

/** Less visible than this (px²) and the window counts as off-screen. */
const MIN_VISIBLE = 100 * 50;

/**
 * @param workAreas the screens' work areas, primary first
 * @param fallback the size a window gets the first time
 */
export function restoreBounds(saved: Rect | undefined, workAreas: readonly Rect[], fallback: { width: number; height: number }): Rect {
  const primary = workAreas[0];
  if (primary === undefined) return saved ?? { x: 0, y: 0, ...fallback };
  if (saved === undefined) return centered(fallback, primary);
  let best: Rect | undefined;
  let bestArea = 0;
  for (const area of workAreas) {
    const overlap = overlapArea(saved, area);
    if (overlap > bestArea) {
      best = area;
      bestArea = overlap;
    }
  }
  if (best === undefined || bestArea < Math.min(MIN_VISIBLE, saved.width * saved.height)) return centered(saved, primary);
  return fitInside(saved, best);
}

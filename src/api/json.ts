// Narrowing values that came in as JSON (files, frames, pi's records) before reading them.

/** A JSON object: not null, not a list. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a value is, for messages about the wrong kind ("expected a boolean, got a list"). */
export function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}

/** A value as a person would type it, cut short: `"rel/dir"`, `10`, `[…]`; for messages. */
export function preview(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text === undefined ? typeof value : text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** The value at `path` inside `root`, or undefined where the path leaves the objects. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

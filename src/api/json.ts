// Narrowing values that came in as JSON (files, frames, pi's records) before reading them.

/** A JSON object: not null, not a list. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a value is, for messages about the wrong kind ("expected a boolean, got a list"). */
export function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}

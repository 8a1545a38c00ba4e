// The settings view's rules: which folders to offer, which models to choose from, what to
// warn about, and how typed values are checked before they are sent.
import type { SessionModels, Snapshot } from '../../../src/api/types.ts';
import { sessionLabel } from '../../../electron/shared/labels.ts';

/** Folders a person is likely to configure: sessions' folders, editors' workspaces, review folders. */
export function projectFolders(snapshot: Pick<Snapshot, 'sessions' | 'editors' | 'settings' | 'idleAgents'>): string[] {
  const folders = new Set<string>();
  for (const s of snapshot.sessions) if (s.cwd !== null) folders.add(s.cwd);
  for (const a of snapshot.idleAgents) if (a.cwd !== null) folders.add(a.cwd);
  for (const e of snapshot.editors) for (const f of e.workspaceFolders) folders.add(f);
  for (const f of snapshot.settings.reviewFolders) folders.add(f);
  return [...folders].sort();
}

export interface ModelOption {
  value: string;
  label: string;
}

export const PASS_EDITOR_CHOICE: ModelOption = { value: 'editor', label: "The editor's own choice" };
export const SESSION_MODEL: ModelOption = { value: 'session', label: "The session's current model" };

/** The fixed choices, then every model some session offers (once each), then the current value if unknown. */
export function modelOptions(models: readonly SessionModels[], current: string): ModelOption[] {
  const options: ModelOption[] = [PASS_EDITOR_CHOICE, SESSION_MODEL];
  const seen = new Set(options.map((o) => o.value));
  for (const session of models) {
    for (const m of session.models) {
      const value = `${m.provider}/${m.id}`;
      if (seen.has(value)) continue;
      seen.add(value);
      options.push({ value, label: `${m.name} (${value})` });
    }
  }
  if (current !== '' && !seen.has(current)) options.push({ value: current, label: `${current} (not offered by any session now)` });
  return options;
}

/** A session started with `--model` ignores the suggestion model Patchbay injects. */
export function cliOverrideWarnings(models: readonly SessionModels[], snapshot: Pick<Snapshot, 'sessions'>): string[] {
  return models
    .filter((m) => m.cliOverride !== null)
    .map((m) => {
      const session = snapshot.sessions.find((s) => s.id === m.sessionId);
      const name = session === undefined ? `session ${m.sessionId}` : sessionLabel(session);
      return `${name} was started with model ${m.cliOverride}; that choice overrides the one made here.`;
    });
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseDeadline(text: string): Parsed<number> {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value)) return { ok: false, error: 'The deadline must be a whole number of milliseconds.' };
  if (value < 50 || value > 60_000) return { ok: false, error: 'The deadline must be between 50 and 60000 ms.' };
  return { ok: true, value };
}

export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

export function addReviewFolder(folders: readonly string[], input: string): Parsed<string[]> {
  const folder = input.trim();
  if (folder === '') return { ok: false, error: 'Type a folder path first.' };
  if (!isAbsolutePath(folder)) return { ok: false, error: `${folder} is not an absolute path.` };
  if (folders.includes(folder)) return { ok: false, error: `${folder} is already a review folder.` };
  return { ok: true, value: [...folders, folder] };
}

/** Autoconnect as a select: explicit on, explicit off, or not set (which means on). */
export type TriState = 'on' | 'off' | 'unset';

export function toTriState(value: boolean | null): TriState {
  return value === null ? 'unset' : value ? 'on' : 'off';
}

export function fromTriState(value: TriState): boolean | null {
  return value === 'unset' ? null : value === 'on';
}

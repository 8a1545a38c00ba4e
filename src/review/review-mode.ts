// When a folder's edits are reviewed (`patchbay review-mode`): `before` they are written (the agent
// waits for a person, as always) or `after` (written at once, kept or undone later). A folder's
// setting holds for its subfolders unless a deeper one says otherwise; elsewhere the global one.
// Pure functions of the settings.
import { containingDepth } from '../broker/folders.ts';
import type { PatchbaySettings, ReviewMode, ReviewModeView } from '../api/types.ts';

type ModeSettings = Pick<PatchbaySettings, 'reviewMode' | 'reviewModePerFolder'>;

/** The folder whose setting holds for `path` (the deepest that contains it), or null. */
function governingFolder(settings: ModeSettings, path: string): string | null {
  let best: string | null = null;
  let depth = -1;
  for (const folder of Object.keys(settings.reviewModePerFolder)) {
    const d = containingDepth([folder], path);
    if (d > depth) {
      depth = d;
      best = folder;
    }
  }
  return best;
}

/** When an edit of the file at `path` is reviewed. */
export function reviewModeFor(settings: ModeSettings, path: string): ReviewMode {
  const folder = governingFolder(settings, path);
  return folder === null ? settings.reviewMode : settings.reviewModePerFolder[folder]!;
}

export function reviewModeView(settings: ModeSettings, project?: string): ReviewModeView {
  if (project === undefined) return { global: settings.reviewMode, project: null, projectMode: null, from: null, effective: settings.reviewMode };
  const from = governingFolder(settings, project);
  return {
    global: settings.reviewMode,
    project,
    projectMode: settings.reviewModePerFolder[project] ?? null,
    from,
    effective: from === null ? settings.reviewMode : settings.reviewModePerFolder[from]!,
  };
}

/** The settings patch that sets (or, with null, removes) the global or a folder's review mode. */
export function reviewModePatch(settings: ModeSettings, value: ReviewMode | null, project?: string): Partial<PatchbaySettings> {
  if (project === undefined) return { reviewMode: value ?? 'before' };
  const perFolder = { ...settings.reviewModePerFolder };
  if (value === null) delete perFolder[project];
  else perFolder[project] = value;
  return { reviewModePerFolder: perFolder };
}

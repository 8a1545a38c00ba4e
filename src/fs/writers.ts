// Who besides a file's owner may write it: the words every trust check (the home, lock dirs)
// uses in its refusals.

/** `its group`, `others` or `its group and others` for a mode's write bits; null when neither may write. */
export function otherWriters(mode: number): string | null {
  const group = (mode & 0o020) !== 0;
  const others = (mode & 0o002) !== 0;
  return group && others ? 'its group and others' : group ? 'its group' : others ? 'others' : null;
}

// "Nothing there" as a value: many checks treat a missing path as its own answer, and every
// other failure (permissions, a loop of links) as an error.

/** What `work` gives, or null when the path it looked at does not exist (ENOENT). */
export async function unlessMissing<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

// Loaded with `node --import` before `patchbay`: on exit, reports to stderr which of node's
// built-in modules the run loaded, so a test can tell that a command did not load more than it needs.
const before = new Set(process.moduleLoadList);
process.on('exit', () => {
  const loaded = process.moduleLoadList
    .filter((m) => !before.has(m) && m.startsWith('NativeModule ') && !m.startsWith('NativeModule internal/'))
    .map((m) => m.slice('NativeModule '.length));
  process.stderr.write(`loaded: ${JSON.stringify(loaded)}\n`);
});

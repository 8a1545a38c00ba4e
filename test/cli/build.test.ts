// The bundled CLI and how `patchbay` tells that it is current (src/cli/build.ts, fresh.mjs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildCli } from '../../src/cli/build.ts';
import { staleReason } from '../../src/cli/fresh.mjs';
import { tempDir } from '../peers/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('a bundle is current until a file it was built from changes or goes', async (t) => {
  const dir = await tempDir('fresh');
  t.after(() => dir.cleanup());
  const root = dir.path;
  assert.equal(staleReason(root), 'it was never built');

  await mkdir(join(root, 'src'));
  await mkdir(join(root, 'out', 'cli'), { recursive: true });
  const source = join(root, 'src', 'a.ts');
  await writeFile(source, 'export const a = 1;\n');
  const { size, mtimeMs } = statSync(source);
  await writeFile(join(root, 'out', 'cli', 'manifest.json'), JSON.stringify({ inputs: { 'src/a.ts': [size, mtimeMs] } }));
  assert.equal(staleReason(root), null);

  await utimes(source, new Date(), new Date(mtimeMs + 5000));
  assert.equal(staleReason(root), 'src/a.ts changed', 'a touched file');
  await writeFile(source, 'export const a = 22;\n');
  assert.equal(staleReason(root), 'src/a.ts changed', 'an edited file');
  await rm(source);
  assert.equal(staleReason(root), 'src/a.ts is gone');
  await writeFile(join(root, 'out', 'cli', 'manifest.json'), '{"inputs":');
  assert.match(staleReason(root) ?? '', /^out\/cli\/manifest\.json is unreadable/);
});

test('the CLI bundle lists every source it was built from and runs', async (t) => {
  const outDir = `out/test-build-${process.pid}`;
  t.after(() => rm(join(ROOT, outDir), { recursive: true, force: true }));
  await buildCli(ROOT, outDir);

  const { inputs } = JSON.parse(await readFile(join(ROOT, outDir, 'manifest.json'), 'utf8')) as { inputs: Record<string, unknown> };
  for (const source of ['src/cli/main.ts', 'src/cli/build.ts', 'src/web/control-client.ts', 'src/hub.ts']) assert.ok(source in inputs, source);
  assert.equal(staleReason(ROOT, outDir), null, 'current right after the build');

  const entry = pathToFileURL(join(ROOT, outDir, 'main.mjs')).href;
  const script = `const { main } = await import(${JSON.stringify(entry)}); process.exitCode = await main(['--version']);`;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))),
  );
  assert.match(out, /^\d+\.\d+\.\d+\n$/);
});

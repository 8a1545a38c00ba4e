import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, lchown, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { HubError } from '../../src/api/types.ts';
import {
  editAutoconnect,
  projectSettingsFile,
  readAutoconnect,
  setAutoconnect,
  writeAutoconnect,
} from '../../src/settings/pi-settings.ts';
import { withTimeout, WAIT_MS } from '../peers/wait.ts';

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'patchbay-pi-settings-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function put(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

const settingsWith = (value: boolean) => JSON.stringify({ 'pi-ide': { autoconnect: value } });

test('the project file lives in <folder>/.pi/settings.json', () => {
  assert.equal(projectSettingsFile('/home/a/proj'), '/home/a/proj/.pi/settings.json');
});

// [name, global file contents, project file contents, expected view values]
const precedence: [string, string | null, string | null, { global: boolean | null; project: boolean | null; effective: boolean }][] = [
  ['neither file: enabled', null, null, { global: null, project: null, effective: true }],
  ['files without the key: enabled', '{"theme":"dark"}', '{}', { global: null, project: null, effective: true }],
  ['global off', settingsWith(false), null, { global: false, project: null, effective: false }],
  ['global on', settingsWith(true), null, { global: true, project: null, effective: true }],
  ['project off alone', null, settingsWith(false), { global: null, project: false, effective: false }],
  ['project on overrides global off', settingsWith(false), settingsWith(true), { global: false, project: true, effective: true }],
  ['project off overrides global on', settingsWith(true), settingsWith(false), { global: true, project: false, effective: false }],
  ['project without the key leaves global off', settingsWith(false), '{"pi-ide":{}}', { global: false, project: null, effective: false }],
];

for (const [name, globalText, projectText, expected] of precedence) {
  test(`effective autoconnect: ${name}`, () =>
    withDir(async (dir) => {
      const globalFile = join(dir, 'agent', 'settings.json');
      const project = join(dir, 'proj');
      if (globalText !== null) await put(globalFile, globalText);
      if (projectText !== null) await put(projectSettingsFile(project), projectText);
      const view = await readAutoconnect({ globalFile, project });
      assert.deepEqual(view, { globalFile, projectFile: projectSettingsFile(project), ...expected });
    }));
}

test('without a project, the global value alone decides', () =>
  withDir(async (dir) => {
    const globalFile = join(dir, 'settings.json');
    await put(globalFile, settingsWith(false));
    assert.deepEqual(await readAutoconnect({ globalFile }), {
      globalFile,
      global: false,
      projectFile: null,
      project: null,
      effective: false,
    });
  }));

test('reading a settings file that does not parse names the file', () =>
  withDir(async (dir) => {
    const globalFile = join(dir, 'settings.json');
    await put(globalFile, '{"pi-ide": ');
    await assert.rejects(readAutoconnect({ globalFile }), (error: Error) => {
      assert.ok(error instanceof HubError);
      assert.ok(error.message.includes(globalFile));
      return true;
    });
  }));

test('an autoconnect that is not true or false is reported, not guessed', () =>
  withDir(async (dir) => {
    const globalFile = join(dir, 'settings.json');
    await put(globalFile, '{"pi-ide": {"autoconnect": "no"}}');
    await assert.rejects(readAutoconnect({ globalFile }), /"pi-ide\.autoconnect" must be true or false \(got "no"\)/);
  }));

test('turning autoconnect off keeps every other key, their order and the file mode', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    const original = {
      defaultProvider: 'anthropic',
      'pi-ide': { lockDir: '/x', autoconnect: true, other: 1 },
      packages: ['a', 'b'],
      nested: { deep: { n: 1.5, s: 'é' } },
    };
    await put(file, `${JSON.stringify(original, null, 2)}\n`);
    await chmod(file, 0o600);

    await writeAutoconnect(file, false);

    const text = await readFile(file, 'utf8');
    const expected = { ...original, 'pi-ide': { lockDir: '/x', autoconnect: false, other: 1 } };
    assert.equal(text, `${JSON.stringify(expected, null, 2)}\n`, 'same keys, same order, 2-space indent, final newline');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
  }));

test('a new key goes after the existing ones', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    await put(file, '{\n  "b": 1,\n  "a": 2\n}\n');
    await writeAutoconnect(file, true);
    assert.deepEqual(Object.keys(JSON.parse(await readFile(file, 'utf8'))), ['b', 'a', 'pi-ide']);
  }));

test('a file indented with tabs stays indented with tabs', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    await put(file, '{\n\t"theme": "dark"\n}');
    await writeAutoconnect(file, false);
    assert.equal(await readFile(file, 'utf8'), '{\n\t"theme": "dark",\n\t"pi-ide": {\n\t\t"autoconnect": false\n\t}\n}');
  }));

test('writing creates the missing directory and file, with the modes pi would use', () =>
  withDir(async (dir) => {
    const project = join(dir, 'proj');
    await mkdir(project);
    const file = projectSettingsFile(project);

    await writeAutoconnect(file, false);

    assert.equal(await readFile(file, 'utf8'), '{\n  "pi-ide": {\n    "autoconnect": false\n  }\n}\n');
    assert.equal((await stat(file)).mode & 0o777, 0o644);
    assert.equal((await stat(dirname(file))).mode & 0o777, 0o755);
    assert.equal((await readAutoconnect({ globalFile: join(dir, 'none.json'), project })).effective, false);
  }));

test('unsetting in a missing file creates nothing', () =>
  withDir(async (dir) => {
    const file = join(dir, 'proj', '.pi', 'settings.json');
    await writeAutoconnect(file, null);
    assert.deepEqual(await readdir(dir), []);
  }));

test('unsetting removes the key, and "pi-ide" when nothing else is in it', () =>
  withDir(async (dir) => {
    const alone = join(dir, 'alone.json');
    const shared = join(dir, 'shared.json');
    await put(alone, '{\n  "theme": "dark",\n  "pi-ide": {\n    "autoconnect": false\n  }\n}\n');
    await put(shared, '{\n  "pi-ide": {\n    "autoconnect": false,\n    "lockDir": "/x"\n  }\n}\n');

    await writeAutoconnect(alone, null);
    await writeAutoconnect(shared, null);

    assert.equal(await readFile(alone, 'utf8'), '{\n  "theme": "dark"\n}\n');
    assert.equal(await readFile(shared, 'utf8'), '{\n  "pi-ide": {\n    "lockDir": "/x"\n  }\n}\n');
  }));

// [name, file contents, words the refusal must contain]
const refusals: [string, string, string[]][] = [
  ['invalid JSON', '{"theme": "dark",\n // a comment\n}', ['does not parse']],
  ['an empty file', '', ['does not parse']],
  ['a top level that is a list', '[1, 2]', ['top level must be an object', 'a list']],
  ['a "pi-ide" that is not an object', '{"pi-ide": true}', ['"pi-ide" must be an object', 'boolean']],
];

for (const [name, contents, words] of refusals) {
  test(`writing refuses ${name}, names the file and leaves it byte for byte`, () =>
    withDir(async (dir) => {
      const file = join(dir, 'settings.json');
      await put(file, contents);
      const before = await readFile(file);
      const mtime = (await stat(file)).mtimeMs;

      await assert.rejects(writeAutoconnect(file, true), (error: Error) => {
        assert.ok(error instanceof HubError);
        assert.equal(error.code, 'invalid');
        assert.ok(error.message.includes(file), error.message);
        for (const word of words) assert.ok(error.message.includes(word), `"${error.message}" lacks ${word}`);
        return true;
      });

      assert.deepEqual(await readFile(file), before);
      assert.equal((await stat(file)).mtimeMs, mtime);
      assert.deepEqual(await readdir(dir), ['settings.json'], 'no temp file is left behind');
    }));
}

test('a write that changes nothing leaves the file untouched', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    const text = '{"pi-ide":{"autoconnect":false}}';
    await put(file, text);
    await writeAutoconnect(file, false);
    assert.equal(await readFile(file, 'utf8'), text);
  }));

test('a symlinked settings file is edited where it points, and stays a symlink', () =>
  withDir(async (dir) => {
    const real = join(dir, 'dotfiles', 'settings.json');
    const link = join(dir, 'agent', 'settings.json');
    await put(real, '{"theme":"dark"}\n');
    await mkdir(dirname(link), { recursive: true });
    await symlink(real, link);

    await writeAutoconnect(link, false);

    assert.ok((await import('node:fs')).lstatSync(link).isSymbolicLink());
    assert.deepEqual(JSON.parse(await readFile(real, 'utf8')), { theme: 'dark', 'pi-ide': { autoconnect: false } });
  }));

test('20 concurrent writers across projects and one shared file all land', () =>
  withDir(async (dir) => {
    const shared = join(dir, 'shared.json');
    await put(shared, '{"theme":"dark"}\n');
    const projects = Array.from({ length: 20 }, (_, i) => join(dir, `p${i}`));
    const values = projects.map((_, i) => i % 2 === 0);

    // Every writer toggles its own project and the shared file; the last one unsets the
    // shared key, which only works if it sees the writes queued before it.
    const writes = projects.flatMap((project, i) => [
      writeAutoconnect(projectSettingsFile(project), values[i]!),
      writeAutoconnect(shared, i === projects.length - 1 ? null : values[i]!),
    ]);
    await Promise.all(writes);

    for (const [i, project] of projects.entries()) {
      const view = await readAutoconnect({ globalFile: join(dir, 'none.json'), project });
      assert.equal(view.project, values[i], project);
    }
    assert.equal(await readFile(shared, 'utf8'), '{\n  "theme": "dark"\n}\n');
    assert.deepEqual((await readdir(dir)).filter((name) => !/^(p\d+|shared\.json)$/.test(name)), []);
  }));

test('concurrent writes to one file apply in the order they were made', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    const values: (boolean | null)[] = [true, false, null, true, false, null, false, true, null];
    await Promise.all(values.map((value) => writeAutoconnect(file, value)));
    assert.equal(await readFile(file, 'utf8'), '{}\n');
  }));

test('a refused write does not hold up the writes queued behind it', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    await put(file, 'not json');
    const [first, second] = await Promise.allSettled([writeAutoconnect(file, true), writeAutoconnect(file, false)]);
    assert.equal(first.status, 'rejected');
    assert.equal(second.status, 'rejected', 'the second write ran and met the same broken file');
    await writeFile(file, '{}');
    await writeAutoconnect(file, false);
    assert.equal((await readAutoconnect({ globalFile: file })).global, false);
  }));

test('editAutoconnect is pure text in, text out', () => {
  assert.equal(editAutoconnect('f', null, null), null);
  assert.equal(editAutoconnect('f', null, true), '{\n  "pi-ide": {\n    "autoconnect": true\n  }\n}\n');
  assert.equal(editAutoconnect('f', '{"pi-ide":{"autoconnect":true}}', true), null);
  assert.equal(editAutoconnect('f', '{"a":1}', null), null);
  assert.equal(editAutoconnect('f', '{"a":1,"pi-ide":{"autoconnect":true}}', null), '{\n  "a": 1\n}');
  assert.throws(() => editAutoconnect('/x/settings.json', '{', true), /\/x\/settings\.json does not parse/);
});

test('a read-only settings file is refused with a clear message and left as it is', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    await put(file, settingsWith(true));
    await chmod(file, 0o444);
    await assert.rejects(writeAutoconnect(file, false), (err: HubError) => {
      assert.match(err.message, /read-only \(mode 0444\)/);
      assert.ok(err.message.includes(file), err.message);
      return true;
    });
    assert.equal(await readFile(file, 'utf8'), settingsWith(true));
    assert.equal((await stat(file)).mode & 0o777, 0o444);
  }));

test('a change someone else makes while Patchbay writes is kept, and Patchbay’s edit made on top', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    await put(file, JSON.stringify({ theme: 'dark' }));
    let raced = false;
    await writeAutoconnect(file, false, {
      beforeCompare: async (target) => {
        if (raced) return;
        raced = true;
        await writeFile(target, JSON.stringify({ theme: 'light', model: 'x' }));
      },
    });
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { theme: 'light', model: 'x', 'pi-ide': { autoconnect: false } });
  }));

test('autoconnect for a project is not written when the global file does not parse', () =>
  withDir(async (dir) => {
    const globalFile = join(dir, 'agent', 'settings.json');
    const project = join(dir, 'proj');
    await put(globalFile, '{ not json');
    await mkdir(project);
    await assert.rejects(setAutoconnect({ globalFile, project }, false), (err: Error) => err.message.includes(globalFile));
    await assert.rejects(stat(projectSettingsFile(project)), { code: 'ENOENT' });
  }));

test('a FIFO as a project’s settings file is refused at once, saying so; reading and writing other files go on', { skip: process.platform === 'win32' }, () =>
  withDir(async (dir) => {
    const globalFile = join(dir, 'agent', 'settings.json');
    const project = join(dir, 'proj');
    const fifo = projectSettingsFile(project);
    await mkdir(dirname(fifo), { recursive: true });
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    // Many at once: each blocked read would hold one of node's four fs threads for good.
    const reads = Array.from({ length: 8 }, () => readAutoconnect({ globalFile, project }).then(() => null, (err: Error) => err));
    const errors = await withTimeout(Promise.all(reads), WAIT_MS, 'reads of a FIFO settings file');
    for (const err of errors) {
      assert.ok(err instanceof HubError);
      assert.match(err.message, /settings\.json is not read: it is a FIFO \(Patchbay reads only regular files\)/);
    }
    await assert.rejects(withTimeout(writeAutoconnect(fifo, false), WAIT_MS, 'a write over a FIFO'), /it is a FIFO/);
    await withTimeout(setAutoconnect({ globalFile }, false), WAIT_MS, 'a write to the global file');
    assert.deepEqual(JSON.parse(await readFile(globalFile, 'utf8')), { 'pi-ide': { autoconnect: false } });
  }));

test('a settings file over 1 MiB is not read', () =>
  withDir(async (dir) => {
    const globalFile = join(dir, 'agent', 'settings.json');
    await put(globalFile, `{"pad":"${'x'.repeat(1024 * 1024)}"}`);
    await assert.rejects(readAutoconnect({ globalFile }), /is not read: it is larger than 1048576 bytes/);
  }));

// Another user's symlink can only be made by root (lchown); as anyone else these are skipped.
const asRoot = { skip: process.getuid?.() !== 0 ? 'needs root to give a symlink to another user' : false };
const OTHER_UID = 65534;

test('autoconnect is not written through a symlink another user owns (a project’s settings.json into your ~/.ssh)', asRoot, () =>
  withDir(async (dir) => {
    const secret = join(dir, 'home', '.ssh', 'settings.json');
    await put(secret, '{"keep":"me"}\n');
    const project = join(dir, 'shared-project');
    const file = projectSettingsFile(project);
    await mkdir(dirname(file), { recursive: true });
    await symlink(secret, file);
    await lchown(file, OTHER_UID, OTHER_UID);
    const err = await setAutoconnect({ globalFile: join(dir, 'agent', 'settings.json'), project }, false).then(() => null, (e: Error) => e);
    assert.ok(err instanceof HubError, 'refused');
    assert.match(err.message, /shared-project\/\.pi\/settings\.json is a symlink owned by uid 65534, neither you nor root/);
    assert.equal(await readFile(secret, 'utf8'), '{"keep":"me"}\n', 'the file it points to is untouched');
    assert.ok((await lstat(file)).isSymbolicLink(), 'the link is left as it is');
  }));

test('autoconnect is not written through a folder symlink another user owns; your own and root’s links are followed', asRoot, () =>
  withDir(async (dir) => {
    const ssh = join(dir, 'home', '.ssh');
    await mkdir(ssh, { recursive: true });
    const project = join(dir, 'shared-project');
    await mkdir(project);
    await symlink(ssh, join(project, '.pi'));
    await lchown(join(project, '.pi'), OTHER_UID, OTHER_UID);
    await assert.rejects(writeAutoconnect(projectSettingsFile(project), false), /\.pi is a symlink owned by uid 65534/);
    assert.deepEqual(await readdir(ssh), [], 'nothing created in the folder it points to');
    // Owned by the person (here root): followed.
    await lchown(join(project, '.pi'), process.getuid!(), process.getgid!());
    await writeAutoconnect(projectSettingsFile(project), false);
    assert.deepEqual(JSON.parse(await readFile(join(ssh, 'settings.json'), 'utf8')), { 'pi-ide': { autoconnect: false } });
  }));

test('autoconnect is not written in a folder others may write, nor under one; the message names the folder and the chmod that fixes it', { skip: process.platform === 'win32' }, () =>
  withDir(async (dir) => {
    const project = join(dir, 'proj');
    const file = projectSettingsFile(project);
    await put(file, '{"theme":"dark"}\n');
    for (const [folder, mode, who] of [
      [join(project, '.pi'), 0o775, 'its group'],
      [project, 0o757, 'others'],
      // Sticky is no excuse for the folder written in: others could put files there for Patchbay to read.
      [join(project, '.pi'), 0o1777, 'its group and others'],
    ] as const) {
      await chmod(folder, mode);
      const err = await writeAutoconnect(file, false).then(() => null, (e: Error) => e);
      assert.ok(err instanceof HubError);
      assert.equal(
        err.message,
        `pi settings ${file}: not written, so that no one can steer the write elsewhere: ${folder} can be written by ${who} (mode ${mode.toString(8).padStart(4, '0')}), who could swap what is in it for a link into your files. Make it yours alone: chmod go-w ${folder}`,
      );
      assert.equal(await readFile(file, 'utf8'), '{"theme":"dark"}\n');
      await chmod(folder, 0o755);
    }
    // A sticky folder above (as /tmp is) is fine: others cannot move what is yours out of it.
    await chmod(project, 0o1777);
    await writeAutoconnect(file, false);
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { theme: 'dark', 'pi-ide': { autoconnect: false } });
    assert.deepEqual(await readdir(join(project, '.pi')), ['settings.json']);
  }));

test('a missing .pi is made only under folders nobody else may write', { skip: process.platform === 'win32' }, () =>
  withDir(async (dir) => {
    const project = join(dir, 'proj');
    await mkdir(project, { mode: 0o777 });
    await chmod(project, 0o777);
    await assert.rejects(writeAutoconnect(projectSettingsFile(project), true), /proj can be written by its group and others \(mode 0777\)/);
    assert.deepEqual(await readdir(project), [], 'no .pi made');
  }));

test('a write that fails after its temp file was made leaves no temp file behind', () =>
  withDir(async (dir) => {
    const file = join(dir, 'settings.json');
    await put(file, '{}');
    await assert.rejects(
      writeAutoconnect(file, true, {
        beforeCompare: async () => {
          assert.equal((await readdir(dir)).filter((name) => name.endsWith('.tmp')).length, 1, 'the temp file exists by now');
          throw new Error('the disk went away');
        },
      }),
      /the disk went away/,
    );
    assert.deepEqual(await readdir(dir), ['settings.json']);
    assert.equal(await readFile(file, 'utf8'), '{}');
  }));

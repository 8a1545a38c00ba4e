import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubError } from '../../src/api/types.ts';
import { DEFAULT_SETTINGS } from '../../src/settings/defaults.ts';
import { MEMORY_LIMIT, PatchbayStore, type StoreFile } from '../../src/settings/store.ts';
import Conf from 'conf';

async function withHome(run: (home: string) => Promise<void> | void): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'patchbay-store-'));
  try {
    await run(join(root, 'home'));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

test('a new home starts from the defaults, with no warnings, in a private directory', () =>
  withHome(async (home) => {
    const store = PatchbayStore.open(home);
    assert.deepEqual(store.settings(), DEFAULT_SETTINGS);
    assert.deepEqual(store.warnings, []);
    assert.equal((await stat(home)).mode & 0o777, 0o700);
  }));

test('settings and memory survive closing and reopening the store', () =>
  withHome(async (home) => {
    const first = PatchbayStore.open(home);
    first.updateSettings({ takeover: false, reviewFolders: ['/home/a/notes'], suggestionModel: 'openai/gpt-5' });
    first.remember('pi:/home/a/proj', 'nvim:/home/a/proj');
    first.remember('claude:/home/a/other', null);

    const again = PatchbayStore.open(home);
    assert.deepEqual(again.settings(), {
      ...DEFAULT_SETTINGS,
      takeover: false,
      reviewFolders: ['/home/a/notes'],
      suggestionModel: 'openai/gpt-5',
    });
    assert.equal(again.memory('pi:/home/a/proj'), 'nvim:/home/a/proj');
    assert.equal(again.memory('claude:/home/a/other'), null);
    assert.equal(again.memory('pi:/never'), undefined);
    assert.deepEqual(again.warnings, []);
  }));

test('the file is plain JSON with "settings" and "memory" at the top, readable only by the owner', () =>
  withHome(async (home) => {
    const store = PatchbayStore.open(home);
    store.updateSettings({ claude: false });
    store.remember('pi:/p.d/x', 'code:/p.d/x');
    const file = JSON.parse(await readFile(join(home, 'config.json'), 'utf8'));
    assert.deepEqual(file, { settings: { claude: false }, memory: { 'pi:/p.d/x': 'code:/p.d/x' } });
    assert.equal((await stat(join(home, 'config.json'))).mode & 0o777, 0o600);
  }));

test('an invalid settings patch is refused and nothing is written', () =>
  withHome(async (home) => {
    const store = PatchbayStore.open(home);
    store.updateSettings({ launchAtLogin: true });
    const before = await readFile(join(home, 'config.json'), 'utf8');
    assert.throws(() => store.updateSettings({ launchAtLogin: false, maxFrameBytes: 5 }), HubError);
    assert.equal(await readFile(join(home, 'config.json'), 'utf8'), before);
    assert.equal(store.settings().launchAtLogin, true);
  }));

test('the settings handed out cannot be changed behind the store’s back', () =>
  withHome((home) => {
    const store = PatchbayStore.open(home);
    assert.throws(() => store.settings().reviewFolders.push('/x'), TypeError);
    assert.throws(() => {
      (store.settings() as { takeover: boolean }).takeover = false;
    }, TypeError);
    assert.deepEqual(store.settings().reviewFolders, []);
    assert.equal(store.settings().takeover, true);
  }));

test('an unparsable config.json is moved aside, reported and replaced by defaults', () =>
  withHome(async (home) => {
    PatchbayStore.open(home);
    const garbage = '{"settings": {"takeover": false,,}';
    await writeFile(join(home, 'config.json'), garbage);

    const store = PatchbayStore.open(home);
    assert.deepEqual(store.settings(), DEFAULT_SETTINGS);
    const aside = (await readdir(home)).filter((name) => name.startsWith('config.json.corrupt-'));
    assert.equal(aside.length, 1);
    assert.equal(await readFile(join(home, aside[0]!), 'utf8'), garbage, 'the broken file is kept byte for byte');
    assert.equal(store.warnings.length, 1);
    const warning = store.warnings[0]!;
    assert.ok(warning.includes(join(home, 'config.json')), warning);
    assert.ok(warning.includes(join(home, aside[0]!)), warning);
    assert.match(warning, /JSON/);

    store.updateSettings({ claude: false });
    assert.equal(PatchbayStore.open(home).settings().claude, false);
  }));

test('a config.json whose top level is not an object is moved aside too', () =>
  withHome(async (home) => {
    PatchbayStore.open(home);
    await writeFile(join(home, 'config.json'), '[1, 2]');
    const store = PatchbayStore.open(home);
    assert.deepEqual(store.settings(), DEFAULT_SETTINGS);
    assert.match(store.warnings[0]!, /top level is a list/);
    assert.equal((await readdir(home)).filter((name) => name.startsWith('config.json.corrupt-')).length, 1);
  }));

test('two corrupt files in a row are both kept', () =>
  withHome(async (home) => {
    PatchbayStore.open(home);
    await writeFile(join(home, 'config.json'), 'one');
    PatchbayStore.open(home);
    await writeFile(join(home, 'config.json'), 'two');
    PatchbayStore.open(home);
    const aside = (await readdir(home)).filter((name) => name.startsWith('config.json.corrupt-'));
    const contents = await Promise.all(aside.map((name) => readFile(join(home, name), 'utf8')));
    assert.deepEqual(contents.sort(), ['one', 'two']);
  }));

test('a bad stored value falls back to its default, is reported, and stays until it is replaced', () =>
  withHome(async (home) => {
    PatchbayStore.open(home);
    const path = join(home, 'config.json');
    await writeFile(path, JSON.stringify({ settings: { diagnosticsDeadlineMs: 'slow', claude: false } }));

    const store = PatchbayStore.open(home);
    assert.equal(store.settings().diagnosticsDeadlineMs, 1500);
    assert.equal(store.settings().claude, false);
    assert.equal(store.warnings.length, 1);
    assert.match(store.warnings[0]!, /"settings\.diagnosticsDeadlineMs".*"slow".*default 1500/);

    store.updateSettings({ takeover: false });
    assert.equal(JSON.parse(await readFile(path, 'utf8')).settings.diagnosticsDeadlineMs, 'slow');
    store.updateSettings({ diagnosticsDeadlineMs: 800 });
    assert.equal(store.settings().diagnosticsDeadlineMs, 800);
    assert.deepEqual(store.warnings, []);
  }));

test('memory entries that are not an editor id or null are ignored with a warning', () =>
  withHome(async (home) => {
    PatchbayStore.open(home);
    await writeFile(join(home, 'config.json'), JSON.stringify({ memory: { 'pi:/a': 'nvim:/a', 'pi:/b': 7 } }));
    const store = PatchbayStore.open(home);
    assert.equal(store.memory('pi:/a'), 'nvim:/a');
    assert.equal(store.memory('pi:/b'), undefined);
    assert.match(store.warnings[0]!, /"pi:\/b"/);
  }));

test('forgetting a session key removes its binding for good', () =>
  withHome((home) => {
    const store = PatchbayStore.open(home);
    store.remember('pi:/a', 'nvim:/a');
    store.forget('pi:/a');
    assert.equal(store.memory('pi:/a'), undefined);
    assert.equal(PatchbayStore.open(home).memory('pi:/a'), undefined);
  }));

test('memory keeps only the most recently remembered keys', () =>
  withHome(async (home) => {
    const path = join(home, 'config.json');
    PatchbayStore.open(home);
    const memory: Record<string, string> = {};
    for (let i = 0; i < MEMORY_LIMIT; i++) memory[`pi:/p${i}`] = `nvim:/p${i}`;
    await writeFile(path, JSON.stringify({ memory }));

    const store = PatchbayStore.open(home);
    store.remember('pi:/p0', 'code:/p0'); // refreshed: now the most recent
    store.remember('pi:/new', 'nvim:/new'); // one over the limit: the oldest (p1) goes
    assert.equal(store.memory('pi:/p0'), 'code:/p0');
    assert.equal(store.memory('pi:/p1'), undefined);
    assert.equal(store.memory('pi:/p2'), 'nvim:/p2');
    assert.equal(store.memory('pi:/new'), 'nvim:/new');
    assert.equal(Object.keys(JSON.parse(await readFile(path, 'utf8')).memory).length, MEMORY_LIMIT);
  }));

test('keys another writer added to the file survive Patchbay writing it', () =>
  withHome(async (home) => {
    const path = join(home, 'config.json');
    const store = PatchbayStore.open(home);
    store.updateSettings({ claude: false });
    const file = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...file, windowBounds: { width: 800 } }));

    store.remember('pi:/a', null);
    assert.deepEqual(JSON.parse(await readFile(path, 'utf8')).windowBounds, { width: 800 });

    await writeFile(path, JSON.stringify({ ...file, settings: { claude: false, takeover: false } }));
    store.reload();
    assert.equal(store.settings().takeover, false);
  }));

test('the desktop app can open the same config.json through its own conf-compatible store', () =>
  withHome(async (home) => {
    const seen: Record<string, unknown>[] = [];
    const store = PatchbayStore.open(home, (options) => {
      seen.push({ ...options });
      return new Conf<StoreFile>(options);
    });
    store.updateSettings({ diagnosticsDeadlineMs: 900 });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.cwd, home);
    assert.equal(seen[0]!.configName, 'config');
    // What one backend wrote, the other (headless conf) reads.
    assert.equal(PatchbayStore.open(home).settings().diagnosticsDeadlineMs, 900);
  }));

test('what makes Patchbay run a program or trust others’ files (piCommand, allowPiExtensions, trustedLockDirs) is not changed through the API, only by the person in config.json', () =>
  withHome(async (home) => {
    const store = PatchbayStore.open(home);
    for (const patch of [{ piCommand: '/tmp/their-program' }, { allowPiExtensions: true }, { trustedLockDirs: ['/tmp'] }, { takeover: false, piCommand: 'sh' }]) {
      assert.throws(
        () => store.updateSettings(patch),
        (err: unknown) => {
          assert.ok(err instanceof HubError);
          assert.equal(err.code, 'invalid');
          const key = Object.keys(patch).find((k) => k !== 'takeover')!;
          assert.match(err.message, new RegExp(`^settings: ${key} is not changed over Patchbay's API`));
          assert.ok(err.message.includes(`patchbay settings set ${key}`), err.message);
          assert.ok(err.message.includes(join(home, 'config.json')), err.message);
          return true;
        },
      );
    }
    assert.deepEqual(store.settings(), DEFAULT_SETTINGS, 'nothing of a refused patch was stored');

    // The CLI, run as the person, writes the file; a running hub takes it in when it reloads.
    const cli = PatchbayStore.open(home);
    cli.updateSettings({ piCommand: '/opt/pi/bin/pi', allowPiExtensions: true, trustedLockDirs: ['/srv/shared/ide'] }, { local: true });
    assert.equal(store.settings().piCommand, '', 'not until reloaded');
    store.reload();
    assert.equal(store.settings().piCommand, '/opt/pi/bin/pi');
    assert.equal(store.settings().allowPiExtensions, true);
    assert.deepEqual(store.settings().trustedLockDirs, ['/srv/shared/ide']);
  }));

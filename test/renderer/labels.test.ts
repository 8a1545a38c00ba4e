import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EditorView } from '../../src/api/types.ts';
import { baseName, boundLabel, sessionLabel } from '../../electron/shared/labels.ts';
import { rebindChoices } from '../../electron/shared/rebind-choices.ts';

const ed = (id: string, folders: string[], alive = true): EditorView =>
  ({ id, ideName: id, workspaceFolders: folders, port: 1, pid: 1, dialect: 'pi', authenticated: true, alive, lockfile: '', focusedAt: null });

test('rebind choices list live editors only, deepest match first, Patchbay last', () => {
  const choices = rebindChoices({ cwd: '/w/app/src', editorId: 'b' }, [ed('z-other', ['/x']), ed('a', ['/w']), ed('b', ['/w/app']), ed('c', ['/w/app'], false)]);
  assert.deepEqual(
    choices.map((c) => [c.editorId, c.matchesFolder, c.current]),
    [
      ['b', true, true],
      ['a', true, false],
      ['z-other', false, false],
      [null, false, false],
    ],
  );
});

test('names read the same in the tray and the windows', () => {
  assert.equal(baseName('/w/app/'), 'app');
  assert.equal(baseName('C:\\w\\app'), 'app');
  assert.equal(sessionLabel({ kind: 'claude', cwd: null, pid: 7, id: 's' }), 'Claude Code · pid 7');
  assert.equal(boundLabel('gone', []), 'editor gone (not running)');
});

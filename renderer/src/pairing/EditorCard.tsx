import type { EditorView, SessionView } from '../../../src/api/types.ts';
import { editorLabel, sessionLabel } from '../../../electron/shared/labels.ts';
import { clockTime } from '../../../src/api/traffic.ts';

export function EditorCard({ editor, sessions }: { editor: EditorView; sessions: readonly SessionView[] }) {
  const served = sessions.filter((s) => s.editorId === editor.id);
  return (
    <article className={`card${editor.alive ? '' : ' dead'}`} aria-label={`Editor ${editorLabel(editor)}`}>
      <h3>
        {editorLabel(editor)} <span className={`liveness ${editor.alive ? 'alive' : 'gone'}`}>{editor.alive ? 'live' : 'not responding'}</span>
        {!editor.authenticated && (
          <>
            {' '}
            <span className="tag warning">unauthenticated</span>
          </>
        )}
      </h3>
      {!editor.authenticated && (
        <p className="meta">Its lockfile has no token and its server asks for none: any program of any user on this machine can reach it. Patchbay sends it no token.</p>
      )}
      <dl className="facts">
        <dt>Workspace</dt>
        <dd>
          {editor.workspaceFolders.length === 0
            ? 'none'
            : editor.workspaceFolders.map((f) => (
                <code key={f} className="path">
                  {f}
                </code>
              ))}
        </dd>
        {editor.worktrees !== undefined && editor.worktrees.length > 0 && (
          <>
            <dt>Other worktrees</dt>
            <dd>
              {editor.worktrees.map((w) => (
                <code key={w} className="path">
                  {w}
                </code>
              ))}
            </dd>
          </>
        )}
        <dt>Process</dt>
        <dd>
          pid {editor.pid} · port {editor.port} · {editor.dialect} dialect
        </dd>
        <dt>Last focus</dt>
        <dd>{editor.focusedAt === null ? 'never seen' : clockTime(editor.focusedAt).slice(0, 8)}</dd>
        <dt>Lockfile</dt>
        <dd>
          <code className="path">{editor.lockfile}</code>
        </dd>
        <dt>Serves</dt>
        <dd>{served.length === 0 ? 'no session' : served.map((s) => sessionLabel(s)).join(', ')}</dd>
      </dl>
    </article>
  );
}

// Sessions and editors side by side: who serves whom and why, one-step rebinding, agents
// that did not connect, and lockfiles that could not be used.
import { routeHash } from '../app/route.ts';
import { useHub, useSnapshot } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { EditorCard } from './EditorCard.tsx';
import { RemotesSection } from './RemotesSection.tsx';
import { SessionCard } from './SessionCard.tsx';

export function PairingView() {
  const snapshot = useSnapshot();
  const liveEditors = snapshot.editors.filter((e) => e.alive).length;
  // Editors write their lockfiles beside the door's.
  const lockDirs = [...new Set(snapshot.door.lockfiles.map((f) => f.replace(/[\\/][^\\/]*$/, '')))];
  return (
    <div className="pairing">
      <section className="column" aria-labelledby="sessions-title">
        <div className="column-heading">
          <h1 id="sessions-title">Agents connected ({snapshot.sessions.length})</h1>
          <PauseButton paused={snapshot.paused} />
        </div>
        {snapshot.paused && (
          <p className="warning-text">
            Routing is paused: no session is served by an editor, every edit waits in Review. Each session’s own choice comes back on Resume.
          </p>
        )}
        {snapshot.sessions.length === 0 && (
          <p className="empty">
            No agent is connected. Start pi (with pi-ide) or Claude Code in a folder an editor has open, or in a{' '}
            <a href={routeHash({ view: 'settings', id: null })}>review folder</a>: it connects to Patchbay by itself. Or{' '}
            <a href={routeHash({ view: 'sessions', id: null })}>start a pi session here</a>.
          </p>
        )}
        {snapshot.sessions.map((s) => (
          <SessionCard key={s.id} session={s} editors={snapshot.editors} paused={snapshot.paused} />
        ))}
        <RemotesSection remotes={snapshot.remotes} />
        <h2>Running pi not connected ({snapshot.idleAgents.length})</h2>
        {snapshot.idleAgents.length === 0 ? (
          <p className="empty">None found.</p>
        ) : (
          <ul className="plain">
            {snapshot.idleAgents.map((a) => (
              <li key={a.pid} className="card">
                <strong>pid {a.pid}</strong> in {a.cwd ?? 'an unknown folder'}
                <p className="meta">{a.reason}</p>
                <code className="command">{a.command}</code>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="column" aria-labelledby="editors-title">
        <h1 id="editors-title">Editors ({liveEditors} live)</h1>
        {snapshot.editors.length === 0 && (
          <p className="empty">
            No editor found. Open your project in an editor with its agent plugin (pi-ide.nvim, claudecode.nvim, VS Code’s
            Claude Code extension…): it shows here once it writes its lockfile
            {lockDirs.length > 0 && (
              <>
                {' in '}
                {lockDirs.map((d, i) => (
                  <span key={d}>
                    {i > 0 && ' or '}
                    <code>{d}</code>
                  </span>
                ))}
              </>
            )}
            .
            Meanwhile, agents’ edits wait in <a href={routeHash({ view: 'review', id: null })}>Review</a>.
          </p>
        )}
        {snapshot.editors.map((e) => (
          <EditorCard key={e.id} editor={e} sessions={snapshot.sessions} />
        ))}
        <h2>Lockfiles not used ({snapshot.invalidLockfiles.length})</h2>
        {snapshot.invalidLockfiles.length === 0 ? (
          <p className="empty">None.</p>
        ) : (
          <LockfileList files={snapshot.invalidLockfiles.map((l) => ({ path: l.path, about: l.reason }))} />
        )}
        {snapshot.otherLockfiles.length > 0 && (
          <>
            <h2>Other tools’ lockfiles ({snapshot.otherLockfiles.length})</h2>
            <p className="meta">Another protocol’s, sharing the lock dirs: Patchbay leaves them where they are.</p>
            <LockfileList files={snapshot.otherLockfiles.map((l) => ({ path: l.path, about: l.description }))} />
          </>
        )}
        <h2>Patchbay's door</h2>
        <p className="meta">
          {snapshot.door.port === null ? 'Not listening' : `Listening on port ${snapshot.door.port}`}
          {snapshot.door.lockfiles.length > 0 && ' · lockfiles:'}
        </p>
        <ul className="plain">
          {snapshot.door.lockfiles.map((f) => (
            <li key={f}>
              <code>{f}</code>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

/** Lockfiles Patchbay does not use, each with what it says of it. */
function LockfileList({ files }: { files: readonly { path: string; about: string }[] }) {
  return (
    <ul className="plain">
      {files.map((f) => (
        <li key={f.path} className="card">
          <code>{f.path}</code>
          <p className="meta">{f.about}</p>
        </li>
      ))}
    </ul>
  );
}

function PauseButton({ paused }: { paused: boolean }) {
  const { api } = useHub();
  const command = useCommand();
  return (
    <button
      type="button"
      disabled={command.busy}
      title={paused ? 'Editors serve their sessions again' : 'Every edit waits in Review; editors get nothing from agents until Resume'}
      onClick={() => void command.run(() => api.call('setPaused', { paused: !paused }))}
    >
      {paused ? 'Resume routing' : 'Pause routing'}
    </button>
  );
}

// Remotes whose agents reach Patchbay over SSH: how each is doing (and why not), which folders
// there are which here, and the lockfiles written over there. Added and removed in a terminal
// only (`patchbay remote add`): what makes Patchbay run ssh is never set over the API.
import type { RemoteView } from '../../../src/api/types.ts';
import { clockTime } from '../../../src/api/traffic.ts';

const STATE_TEXT: Record<RemoteView['state'], string> = { connected: 'connected', connecting: 'connecting', failed: 'down' };

export function RemotesSection({ remotes }: { remotes: readonly RemoteView[] }) {
  return (
    <>
      <h2>Remotes ({remotes.length})</h2>
      {remotes.length === 0 ? (
        <p className="empty">
          None. Agents on a dev box, in a container with sshd or in a VM reach Patchbay over SSH once you add the machine in a terminal:{' '}
          <code>patchbay remote add &lt;name&gt; &lt;ssh-destination&gt; --map &lt;remote-dir&gt;=&lt;local-dir&gt;</code>
        </p>
      ) : (
        <ul className="plain">
          {remotes.map((r) => (
            <li key={r.name} className="card" aria-label={`Remote ${r.name}`}>
              <h3>
                {r.name} <span className={`liveness remote-${r.state}`}>{STATE_TEXT[r.state]}</span>
              </h3>
              <p className="meta">
                ssh {r.destination}
                {r.remotePort !== null && ` · port ${r.remotePort} over there leads here`}
              </p>
              {r.reason !== null && (
                <p className={r.state === 'failed' ? 'warning-text' : 'meta'}>
                  {r.state === 'connecting' ? 'Reconnecting after: ' : ''}
                  {r.reason}
                  {r.retryAt !== null && ` Trying again at ${clockTime(r.retryAt).slice(0, 8)}.`}
                </p>
              )}
              <dl className="facts">
                <dt>Folders</dt>
                <dd>
                  {r.maps.map((m) => (
                    <span key={m.remote} className="map">
                      <code className="path">{m.remote}</code> there is <code className="path">{m.local}</code> here
                    </span>
                  ))}
                </dd>
                {r.lockfiles.length > 0 && (
                  <>
                    <dt>Lockfiles there</dt>
                    <dd>
                      {r.lockfiles.map((f) => (
                        <code key={f} className="path">
                          {f}
                        </code>
                      ))}
                    </dd>
                  </>
                )}
                {r.problems.map((p) => (
                  <dd key={p} className="warning-text">
                    {p}
                  </dd>
                ))}
              </dl>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

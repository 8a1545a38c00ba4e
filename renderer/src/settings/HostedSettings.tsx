// What runs hosted pi sessions: shown, never changed here. It decides which programs Patchbay
// runs, so only the person sets it, in a terminal (the CLI writes config.json as them); a page
// in a browser could be someone else's.
import type { ReactNode } from 'react';
import type { HostedPiView } from '../../../src/api/types.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';

/** The command as a person would type it: arguments with spaces or quotes in JSON quotes. */
function commandText(command: readonly string[]): string {
  return command.map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part))).join(' ');
}

function source(view: HostedPiView): ReactNode {
  switch (view.commandSource) {
    case 'settings':
      return (
        <>
          from the <code>piCommand</code> setting
        </>
      );
    case 'environment':
      return (
        <>
          from <code>$PATCHBAY_PI_COMMAND</code>, where Patchbay was started
        </>
      );
    case 'default':
      return 'pi on PATH: nothing else is set';
  }
}

export function HostedSettings() {
  const { hostedPi } = useSnapshot();
  return (
    <section aria-labelledby="hosted-settings-title" className="settings-section">
      <h2 id="hosted-settings-title">Hosted pi sessions</h2>
      <dl className="facts">
        <dt>pi command</dt>
        <dd>
          <code>{commandText(hostedPi.command)}</code> <span className="meta">{source(hostedPi)}</span>
        </dd>
        <dt>
          Extensions (<code>-e</code>)
        </dt>
        <dd>
          {hostedPi.allowExtensions ? 'allowed' : 'not allowed'}{' '}
          <span className="meta">(an extension runs as code with your rights)</span>
        </dd>
      </dl>
      <p className="meta field-hint">
        These decide what programs Patchbay runs, so they are not changed from this page. Change them in a terminal, as you:
      </p>
      <pre className="local-settings">
        {`patchbay settings set piCommand '"/path/to/pi"'\npatchbay settings set allowPiExtensions true`}
      </pre>
      <p className="meta field-hint">
        or in <code>"settings"</code> of <code>{hostedPi.settingsFile}</code>. The pi command is a path, or a JSON array of
        the program and its arguments (<code>["/opt/node22/bin/node","/opt/pi/dist/cli.js"]</code>); <code>""</code> goes
        back to <code>$PATCHBAY_PI_COMMAND</code>, else <code>pi</code> on PATH. A running Patchbay uses them from the next
        pi it starts.
      </p>
    </section>
  );
}

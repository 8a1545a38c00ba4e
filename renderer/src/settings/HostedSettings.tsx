// How Patchbay runs pi for hosted sessions.
import { useSnapshot } from '../hub/HubProvider.tsx';
import { DraftField } from './DraftField.tsx';
import { parsePiCommandText } from './settings-model.ts';
import { useSaveSettings } from './useSaveSettings.ts';

export function HostedSettings() {
  const { settings } = useSnapshot();
  const saver = useSaveSettings();
  return (
    <section aria-labelledby="hosted-settings-title" className="settings-section">
      <h2 id="hosted-settings-title">Hosted pi sessions</h2>
      <DraftField
        label="pi command"
        value={settings.piCommand ?? ''}
        format={(v) => v}
        parse={parsePiCommandText}
        saver={saver}
        save={(piCommand) => saver.save({ piCommand })}
        input={{ type: 'text', placeholder: 'pi', className: 'wide' }}
        hint={
          <>
            The program Patchbay runs for a pi session it starts: a path (<code>/opt/pi/bin/pi</code>), or a JSON array of the
            program and its arguments (<code>["/opt/node22/bin/node","/opt/pi/dist/cli.js"]</code>). Empty: <code>$PATCHBAY_PI_COMMAND</code>{' '}
            where Patchbay was started with it, else <code>pi</code> on PATH. Applies to sessions started after it is saved.
          </>
        }
      />
    </section>
  );
}

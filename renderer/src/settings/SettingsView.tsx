// Everything Patchbay lets a person configure. Each control saves as soon as it changes.
import { useHub } from '../hub/HubProvider.tsx';
import { AutoconnectSettings } from './AutoconnectSettings.tsx';
import { RoutingSettings } from './RoutingSettings.tsx';
import { SuggestionModelSettings } from './SuggestionModelSettings.tsx';

export function SettingsView() {
  const { transport } = useHub();
  return (
    <div className="settings">
      <h1>Settings</h1>
      <RoutingSettings desktop={transport === 'electron'} />
      <AutoconnectSettings />
      <SuggestionModelSettings />
    </div>
  );
}

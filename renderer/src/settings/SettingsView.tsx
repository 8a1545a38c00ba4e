// Everything Patchbay lets a person configure. Each control saves as soon as it changes (a
// typed one when Enter or leaving it confirms), and says so.
import { useHub } from '../hub/HubProvider.tsx';
import { AutoconnectSettings } from './AutoconnectSettings.tsx';
import { HostedSettings } from './HostedSettings.tsx';
import { NotificationSettings } from './NotificationSettings.tsx';
import { RoutingSettings } from './RoutingSettings.tsx';
import { ReviewModeSettings } from './ReviewModeSettings.tsx';
import { SuggestionModelSettings } from './SuggestionModelSettings.tsx';
import './settings.css';

export function SettingsView() {
  const { transport } = useHub();
  return (
    <div className="settings">
      <h1>Settings</h1>
      <RoutingSettings desktop={transport === 'electron'} />
      <ReviewModeSettings />
      <AutoconnectSettings />
      <SuggestionModelSettings />
      <HostedSettings />
      <NotificationSettings />
    </div>
  );
}

// Says the connection to Patchbay is gone and that the page is getting it back by itself.
import { useHub } from './HubProvider.tsx';

export function ConnectionBanner() {
  const { connection, retryNow } = useHub();
  if (connection.kind !== 'reconnecting') return null;
  return (
    <div role="alert" className="banner error">
      Lost the connection to Patchbay: {connection.why}. Reconnecting by itself…{' '}
      <button type="button" onClick={retryNow}>
        Reconnect now
      </button>
      {connection.lastError !== null && <span className="banner-detail"> Last attempt: {connection.lastError}.</span>}
    </div>
  );
}

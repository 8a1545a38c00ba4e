// The page's first script is small: it starts the sign-in and the connection to Patchbay (two
// requests, a WebSocket, then the snapshot and the diff in the address) and the diff editor's fetch, then loads React and the app,
// so a cold page parses the app while the connection is made, not before it starts.
import { parseRoute } from './app/route.ts';
import { connectHub } from './hub/connect.ts';
import { startEarly } from './hub/early-start.ts';
import { loadEditorModule } from './review/editor-module.ts';
import './styles.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html: no #root element');
const route = parseRoute(window.location.hash);
const connection = connectHub();
window.addEventListener('pagehide', () => connection.close());
// The first snapshot and the diff the address names are asked for as soon as the socket is up.
startEarly(connection, route.view === 'review' ? route.id : null);
// The lazy component reports a failed fetch when a diff is shown.
loadEditorModule().catch(() => {});
import('./app/render.tsx').then(
  ({ render }) => render(root, connection),
  (err: Error) => {
    root.textContent = `Could not load Patchbay's page (${err.message}). Reload to try again.`;
  },
);

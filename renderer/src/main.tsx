// The page's first script is small: it starts the sign-in and the connection to Patchbay (two
// requests, a WebSocket, a snapshot) and the diff editor's fetch, then loads React and the app,
// so a cold page parses the app while the connection is made, not before it starts.
import { connectHub } from './hub/connect.ts';
import { loadEditorModule } from './review/editor-module.ts';
import './styles.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html: no #root element');
const connection = connectHub();
window.addEventListener('pagehide', () => connection.close());
// The lazy component reports a failed fetch when a diff is shown.
loadEditorModule().catch(() => {});
import('./app/render.tsx').then(
  ({ render }) => render(root, connection),
  (err: Error) => {
    root.textContent = `Could not load Patchbay's page (${err.message}). Reload to try again.`;
  },
);

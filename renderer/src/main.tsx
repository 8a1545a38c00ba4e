import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { connectHub } from './hub/connect.ts';
import { HubProvider } from './hub/HubProvider.tsx';
import { preloadDiffEditor } from './review/lazy-merge-editor.ts';
import './styles.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html: no #root element');
const connection = connectHub();
window.addEventListener('pagehide', () => connection.close());
createRoot(root).render(
  <StrictMode>
    <HubProvider connection={connection}>
      <App />
    </HubProvider>
  </StrictMode>,
);
// Beside the connection to Patchbay, so the first diff does not wait for it.
preloadDiffEditor();

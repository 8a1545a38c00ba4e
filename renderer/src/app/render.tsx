// The page's React tree, in a chunk of its own: main.tsx connects to Patchbay while it arrives.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { HubConnection } from '../hub/connect.ts';
import { HubProvider } from '../hub/HubProvider.tsx';
import { App } from './App.tsx';

export function render(root: HTMLElement, connection: HubConnection): void {
  createRoot(root).render(
    <StrictMode>
      <HubProvider connection={connection}>
        <App />
      </HubProvider>
    </StrictMode>,
  );
}

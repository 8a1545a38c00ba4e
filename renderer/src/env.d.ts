/// <reference types="vite/client" />
import type { PatchbayBridge } from '../../electron/shared/bridge.ts';

declare global {
  interface Window {
    /** Present in the Electron app (its preload); absent in a browser. */
    readonly patchbay?: PatchbayBridge;
  }
}

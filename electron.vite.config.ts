// Builds the desktop shell (out/main, out/preload) and the renderer (out/renderer), which
// the headless control server serves too. Works without Electron's binary.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { CONTENT_SECURITY_POLICY, devContentSecurityPolicy } from './electron/shared/csp.ts';

const root = import.meta.dirname;

// electron-vite reads Electron's version from the `electron` package to pick build targets
// and the module format. The package is optional; without it, build for the pinned major.
const ELECTRON_MAJOR = '39';
try {
  createRequire(import.meta.url).resolve('electron/package.json');
} catch {
  process.env.ELECTRON_MAJOR_VER ??= ELECTRON_MAJOR;
}

/** Puts the CSP into index.html, relaxed only for the dev server. */
function contentSecurityPolicy(): Plugin {
  let policy = CONTENT_SECURITY_POLICY;
  return {
    name: 'patchbay:csp',
    configureServer(server) {
      const { port = 5173, host } = server.config.server;
      const hostname = typeof host === 'string' ? host : 'localhost';
      policy = devContentSecurityPolicy(`http://${hostname}:${port}`);
    },
    transformIndexHtml: {
      order: 'pre',
      handler: () => [
        { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: policy }, injectTo: 'head-prepend' },
      ],
    },
  };
}

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      lib: { entry: resolve(root, 'electron/main/index.ts'), formats: ['es'], fileName: () => 'index.js' },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // A sandboxed preload must be one CommonJS file: it cannot load ESM or other modules.
      lib: { entry: resolve(root, 'electron/preload/index.ts'), formats: ['cjs'], fileName: () => 'index.cjs' },
      externalizeDeps: false,
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    // Relative asset URLs: loaded from file:// in Electron and from `/` by the control server.
    base: './',
    plugins: [react(), contentSecurityPolicy()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      // The same bundle runs in Electron's Chromium and in the person's own browser.
      target: 'es2022',
      // electron-vite leaves output unminified; the browser face downloads it: 1.4 MB -> about 0.6 MB.
      minify: true,
      // electron-vite 6 takes the input from `rolldownOptions` (Vite 8's name), unknown to Vite 7's types.
      ...({ rolldownOptions: { input: resolve(root, 'renderer/index.html') } } as object),
    },
  },
});

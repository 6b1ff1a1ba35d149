import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard is built into the host package (dist/ui) at `pnpm build`; the host serves the files
// at /ui. Preact's automatic JSX runtime; hashed file names, so the host may let browsers keep them.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Nothing inline: the host's Content-Security-Policy allows only its own files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 200,
  },
});

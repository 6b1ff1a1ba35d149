// What the agent's and the CLI's bundle scripts share: ESM for Node 20, split into lazily loaded
// chunks, minified, with zod's English locale only, written into an emptied folder.
import { rmSync } from 'node:fs';
import path from 'node:path';

/**
 * zod's `z` namespace re-exports all ~60 message locales (a quarter of a bundle); OpenLegion only
 * ever uses the default English one, so the locales index is replaced by one that exports `en`.
 */
const englishOnlyZodLocales = {
  name: 'english-only-zod-locales',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/zod/') ? { path: args.importer, namespace: 'zod-locales-en' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales-en' }, (args) => ({
      contents: "export { default as en } from '../locales/en.js';",
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * Bundle with esbuild's `build` (the calling package's own esbuild) into `outdir`, emptied first:
 * chunk names carry a content hash, so earlier builds' chunks would pile up and ship. `options`
 * adds to or overrides the shared options (entry points, externals, banner; its plugins run before
 * the zod one). Logs how long it took, naming `what`.
 */
export async function bundleForNode(build, what, { outdir, plugins = [], ...options }) {
  const started = performance.now();
  rmSync(outdir, { recursive: true, force: true });
  await build({
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [...plugins, englishOnlyZodLocales],
    ...options,
  });
  console.error(`bundled ${what} in ${Math.round(performance.now() - started)} ms`);
}

// esbuild plugins shared by the agent's and the CLI's bundle scripts.
import path from 'node:path';

/**
 * zod's `z` namespace re-exports all ~60 message locales (a quarter of a bundle); OpenLegion only
 * ever uses the default English one, so the locales index is replaced by one that exports `en`.
 */
export const englishOnlyZodLocales = {
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

// Bundle the CLI (with the host it starts) into bundle/bin.mjs, what `pnpm -s openlegion` runs.
// A few files load much faster than the hundreds of node_modules files behind them: `openlegion
// start` reached its first line ~140 ms sooner, and every other command starts faster too.
// Native addons (better-sqlite3, sqlite-vec) stay packages; the agent and testkit are only
// located (their entry files are spawned), never imported.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { bundleForNode } from '../../../scripts/esbuild-bundle.mjs';

const packages = new URL('../../', import.meta.url).pathname;

/**
 * Each package's version.ts reads its package.json next to its own dist/ at run time; in a bundle
 * every module sits in bundle/, so the versions are read now and written in as constants.
 */
const bakedVersions = {
  name: 'baked-versions',
  setup(build) {
    build.onLoad({ filter: /\/packages\/(host|cli)\/dist\/version\.js$/ }, (args) => {
      const name = /\/packages\/(host|cli)\//.exec(args.path)?.[1];
      const { version } = JSON.parse(readFileSync(`${packages}${name}/package.json`, 'utf8'));
      const constant = name === 'host' ? 'HOST_VERSION' : 'CLI_VERSION';
      return { contents: `export const ${constant} = ${JSON.stringify(version)};`, loader: 'js' };
    });
  },
};

/**
 * The host finds its built dashboard (packages/host/dist/ui) next to its own module; in the bundle
 * that module sits in bundle/, so the folder is written in as a constant.
 */
const dashboardAssets = {
  name: 'dashboard-assets',
  setup(build) {
    build.onLoad({ filter: /\/packages\/host\/dist\/dashboard\/dashboard-assets\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const located = "fileURLToPath(new URL('../../dist/ui/', import.meta.url))";
      if (!source.includes(located))
        throw new Error(`${args.path} no longer locates the dashboard as expected`);
      return { contents: source.replace(located, JSON.stringify(`${packages}host/dist/ui/`)), loader: 'js' };
    });
  },
};

await bundleForNode(build, 'the CLI', {
  entryPoints: { bin: new URL('../dist/bin.js', import.meta.url).pathname },
  outdir: new URL('../bundle', import.meta.url).pathname,
  // node-fetch (under grammy) recognises an AbortSignal by its class name: minified names fail it.
  keepNames: true,
  external: ['better-sqlite3', 'sqlite-vec', 'cpu-features', '@openlegion/agent', '@openlegion/testkit'],
  // CommonJS dependencies call require() and read __dirname.
  banner: {
    js: [
      "import { createRequire as __createRequire } from 'node:module';",
      "import { fileURLToPath as __fileURLToPath } from 'node:url';",
      "import { dirname as __pathDirname } from 'node:path';",
      'const require = __createRequire(import.meta.url);',
      'const __filename = __fileURLToPath(import.meta.url);',
      'const __dirname = __pathDirname(__filename);',
    ].join(' '),
  },
  plugins: [bakedVersions, dashboardAssets],
});

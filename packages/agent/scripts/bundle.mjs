// Bundle the agent into bundle/main.mjs for the container image. One file (plus a lazily loaded
// chunk for the LLM SDK) loads several times faster than hundreds of node_modules files, and
// start-up is what a fleet of agents pays for on every start. better-sqlite3 stays external: it
// is a native addon, shipped in the deployment's node_modules.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { englishOnlyZodLocales } from '../../../scripts/esbuild-plugins.mjs';

const started = performance.now();
const outdir = new URL('../bundle', import.meta.url).pathname;
// Chunk names carry a content hash: without this, every build's chunks pile up and go into the image.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: new URL('../src/main.ts', import.meta.url).pathname },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  // sqlite-vec finds its loadable extension next to its own package files, so it must stay a package too;
  // playwright-core reads its own files at run time (and is loaded only at the first browser call).
  // Each external is a direct dependency of the agent, so the deployment puts it in /app/node_modules.
  external: ['better-sqlite3', 'sqlite-vec', 'playwright-core'],
  // CommonJS dependencies (fastify, pino) call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  plugins: [englishOnlyZodLocales],
  logLevel: 'warning',
});
console.error(`bundled the agent in ${Math.round(performance.now() - started)} ms`);

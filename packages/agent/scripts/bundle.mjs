// Bundle the agent into bundle/main.mjs for the container image. One file (plus a lazily loaded
// chunk for the LLM SDK) loads several times faster than hundreds of node_modules files, and
// start-up is what a fleet of agents pays for on every start. better-sqlite3 stays external: it
// is a native addon, shipped in the deployment's node_modules.
import { build } from 'esbuild';

const started = performance.now();
await build({
  entryPoints: { main: new URL('../src/main.ts', import.meta.url).pathname },
  outdir: new URL('../bundle', import.meta.url).pathname,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  external: ['better-sqlite3'],
  // CommonJS dependencies (fastify, pino) call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
console.error(`bundled the agent in ${Math.round(performance.now() - started)} ms`);

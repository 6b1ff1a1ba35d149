// Bundle the agent into bundle/main.mjs for the container image. One file (plus a lazily loaded
// chunk for the LLM SDK) loads several times faster than hundreds of node_modules files, and
// start-up is what a fleet of agents pays for on every start. better-sqlite3 stays external: it
// is a native addon, shipped in the deployment's node_modules.
import { build } from 'esbuild';
import { bundleForNode } from '../../../scripts/esbuild-bundle.mjs';

await bundleForNode(build, 'the agent', {
  entryPoints: { main: new URL('../src/main.ts', import.meta.url).pathname },
  outdir: new URL('../bundle', import.meta.url).pathname,
  // sqlite-vec finds its loadable extension next to its own package files, so it must stay a package too;
  // playwright-core reads its own files at run time (and is loaded only at the first browser call).
  // Each external is a direct dependency of the agent, so the deployment puts it in /app/node_modules.
  external: ['better-sqlite3', 'sqlite-vec', 'playwright-core'],
  // CommonJS dependencies (fastify, pino) call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});

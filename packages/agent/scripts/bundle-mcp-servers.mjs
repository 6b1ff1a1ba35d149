// Bundle the MCP servers the agent image ships (npm packages, unchanged) into one file each, so the
// image needs no node_modules for them: OUT/server-everything/dist/index.mjs (with its docs/ beside
// dist/, which it reads as resources) and OUT/server-filesystem/dist/index.mjs. Usage:
//   node packages/agent/scripts/bundle-mcp-servers.mjs OUT
// Run by scripts/build-agent-image.sh; the agent's MCP tests run the bundles over stdio.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

/** The servers and what each needs beside its bundle. */
export const MCP_SERVERS = [
  { name: 'server-everything', extra: ['docs'] },
  { name: 'server-filesystem', extra: [] },
];

// The servers are dev dependencies of the repository root.
const fromRoot = createRequire(new URL('../../../package.json', import.meta.url));

export async function bundleMcpServers(out) {
  rmSync(out, { recursive: true, force: true });
  for (const server of MCP_SERVERS) {
    const root = path.dirname(fromRoot.resolve(`@modelcontextprotocol/${server.name}/package.json`));
    const target = path.join(out, server.name);
    await build({
      entryPoints: [path.join(root, 'dist/index.js')],
      outfile: path.join(target, 'dist/index.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      minify: true,
      logLevel: 'warning',
      legalComments: 'none',
      // CommonJS dependencies (express, jszip) call require() for Node built-ins.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
    });
    for (const extra of server.extra) {
      const from = path.join(root, 'dist', extra);
      if (existsSync(from)) cpSync(from, path.join(target, extra), { recursive: true });
    }
    cpSync(path.join(root, 'package.json'), path.join(target, 'package.json'));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node bundle-mcp-servers.mjs OUT');
    process.exit(2);
  }
  const started = performance.now();
  await bundleMcpServers(path.resolve(out));
  console.error(
    `bundled ${MCP_SERVERS.length} MCP servers into ${out} in ${Math.round(performance.now() - started)} ms`,
  );
}

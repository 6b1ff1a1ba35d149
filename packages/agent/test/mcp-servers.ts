import { createRequire } from 'node:module';
import path from 'node:path';
import type { McpServerSelf } from '@openlegion/protocol';
import pino from 'pino';
import { createMcpTransport, McpManager } from '../src/mcp/index.js';

const require = createRequire(import.meta.url);

/** The entry file of an MCP server package installed from npm (a root dev dependency). */
export function serverEntry(name: 'server-everything' | 'server-filesystem'): string {
  return path.join(
    path.dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)),
    'dist/index.js',
  );
}

/** The misbehaving fixture server (test/fixtures/mcp/odd-server.mjs) in one of its modes. */
export const ODD_SERVER = new URL('./fixtures/mcp/odd-server.mjs', import.meta.url).pathname;

/** A stdio server run with this Node. */
export function stdio(name: string, args: string[], timeoutMs = 10_000): McpServerSelf {
  return { name, transport: 'stdio', command: process.execPath, args, env: {}, timeout_ms: timeoutMs };
}

/** A manager of `servers` over the real transports, quick to give up and restart. */
export function testManager(
  servers: McpServerSelf[],
  workspace: string,
  options: {
    initTimeoutMs?: number;
    restartDelaysMs?: number[];
    onToolsChanged?: () => void;
    stdoutLineMaxBytes?: number;
  } = {},
): McpManager {
  return new McpManager({
    servers,
    transport: (server) =>
      createMcpTransport(server, {
        mesh: { meshUrl: 'http://127.0.0.1:9', token: 'unused' },
        workspace,
        ...(options.stdoutLineMaxBytes ? { stdoutLineMaxBytes: options.stdoutLineMaxBytes } : {}),
      }),
    logger: pino({ level: 'silent' }),
    initTimeoutMs: options.initTimeoutMs ?? 5_000,
    restartDelaysMs: options.restartDelaysMs ?? [50, 100],
    ...(options.onToolsChanged ? { onToolsChanged: options.onToolsChanged } : {}),
  });
}

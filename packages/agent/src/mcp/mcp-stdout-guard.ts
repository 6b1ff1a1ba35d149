import type { ChildProcess } from 'node:child_process';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * The longest line a stdio server may write before the agent stops it. The SDK keeps what a server
 * writes until a line end, without a limit, so a server streaming bytes with no newline would grow
 * the agent's memory until the container's limit killed the agent. A real message is one line:
 * 32 MiB is well above any result the agent keeps (60,000 characters, four 1.5 MB images).
 */
export const MCP_STDOUT_LINE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Watches the server's stdout beside the SDK (it reads the same stream) and kills the process when
 * one line runs past `limit`; `report` receives the reason, which the next error message carries.
 * The SDK does not expose the child process, so its field is read here; when a later SDK renames
 * it the guard is simply not attached (and a test fails).
 */
export function guardStdout(
  transport: StdioClientTransport,
  report: (reason: string) => void,
  limit = MCP_STDOUT_LINE_MAX_BYTES,
): void {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const child = (transport as unknown as { _process?: ChildProcess })._process;
    let pending = 0;
    child?.stdout?.on('data', (chunk: Buffer) => {
      const lineEnd = chunk.lastIndexOf(0x0a);
      pending = lineEnd === -1 ? pending + chunk.length : chunk.length - lineEnd - 1;
      if (pending <= limit || child.killed) return;
      report(
        `it wrote over ${Math.round(limit / 1024 / 1024)} MiB on stdout without a line end, and was stopped`,
      );
      child.kill('SIGKILL');
    });
  };
}

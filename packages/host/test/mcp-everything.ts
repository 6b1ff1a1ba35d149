import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findFreePort } from '@openlegion/infra/http';

/** A running `@modelcontextprotocol/server-everything`, unchanged from npm. */
export interface EverythingServer {
  /** Its origin on loopback (`http://127.0.0.1:PORT`). */
  origin: string;
  stop(): Promise<void>;
}

const STARTED = /listening on port|running on port/i;

/**
 * Start the reference MCP server from node_modules in `mode` (`streamableHttp`: POST/GET/DELETE
 * `/mcp`; `sse`: GET `/sse`, POST `/message`) on a free port, reached on 127.0.0.1. It binds every
 * interface, as it always does; only loopback clients reach it here. No registry traffic: the
 * package is a dev dependency of the host.
 */
export async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<EverythingServer> {
  const require = createRequire(import.meta.url);
  const entry = join(
    dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
  const port = await findFreePort('127.0.0.1');
  const child: ChildProcess = spawn(process.execPath, [entry, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start:\n${output}`)),
      20_000,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (STARTED.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything ${mode} exited (${code}):\n${output}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

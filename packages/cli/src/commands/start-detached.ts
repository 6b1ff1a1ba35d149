import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import type { CliOutput } from '../cli-output.js';
import type { DetachMessage, StartOptions } from './start-options.js';

/**
 * `openlegion start --detach`: start the host as a background process (`start --detached-child`)
 * and relay its progress; return once every agent is ready, or with its error.
 */
export async function startDetached(options: StartOptions, output: CliOutput): Promise<number> {
  const loaded = await loadMeshConfig(options.config);
  mkdirSync(loaded.dataDir, { recursive: true, mode: 0o700 });
  const console = openSync(path.join(loaded.dataDir, 'host.out'), 'a', 0o600);
  // The CLI entry that is running now (dist/bin.js, or the bundle `pnpm -s openlegion` runs).
  const bin = process.argv[1] ?? '';
  const args = [bin, 'start', '--config', loaded.file, '--detached-child'];
  if (options.runtime) args.push('--runtime', options.runtime);
  if (options.allowUnlockedNetwork) args.push('--allow-unlocked-network');
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', console, console, 'ipc'] });
  return await new Promise<number>((resolve) => {
    child.on('message', (message: DetachMessage) => {
      if (message.type === 'line') output.out(message.text);
      else if (message.type === 'failed') output.err(`openlegion: ${message.message}\n`);
      else {
        output.out(`host running in the background (pid ${child.pid}); stop it with: pnpm openlegion stop\n`);
        child.disconnect();
        child.unref();
        resolve(0);
      }
    });
    child.once('exit', (code) => resolve(code === 0 ? 1 : (code ?? 1)));
  });
}

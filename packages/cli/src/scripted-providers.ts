import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { LoadedMeshConfig } from '@openlegion/host/config';
import { OpenLegionError, providerKind } from '@openlegion/protocol';
import { FAKE_LLM_BIN } from './workspace-paths.js';

const LISTENING_LINE = /fake-llm listening on (\S+)/;
const START_TIMEOUT_MS = 10_000;

export interface ScriptedProviders {
  /** provider name → base URL of the loopback server answering for it */
  baseUrls: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * Start one scripted LLM server (testkit's fake-llm, as a child process on loopback) for each
 * provider of kind `scripted`, so a mesh runs with no provider key at all: the offline demo.
 */
export async function startScriptedProviders(loaded: LoadedMeshConfig): Promise<ScriptedProviders> {
  const children: ChildProcess[] = [];
  const baseUrls: Record<string, string> = {};
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        await once(child, 'exit');
      }),
    );
  };
  try {
    for (const [name, provider] of Object.entries(loaded.config.llm.providers)) {
      if (providerKind(name, provider) !== 'scripted' || !provider.script) continue;
      const child = spawnFakeLlm(loaded.resolvePath(provider.script));
      children.push(child);
      baseUrls[name] = await listeningUrl(child, name);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrls, stop };
}

function spawnFakeLlm(script: string): ChildProcess {
  if (!existsSync(FAKE_LLM_BIN)) {
    throw new OpenLegionError(
      'CONFIG_INVALID',
      `scripted providers need testkit built (${FAKE_LLM_BIN}); run: pnpm build`,
    );
  }
  return spawn(process.execPath, [FAKE_LLM_BIN, '--script', script, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function listeningUrl(child: ChildProcess, provider: string): Promise<string> {
  let output = '';
  return await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail('did not start in time'), START_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(
        new OpenLegionError('CONFIG_INVALID', `scripted provider "${provider}" ${why}:\n${output.trim()}`),
      );
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = LISTENING_LINE.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => fail(`exited with code ${code}`));
  });
}
